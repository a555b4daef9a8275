-- A calendar of the last 14 days from sequence() + UNNEST, left-joined to activity (gap filling).
-- rows: 15
-- columns: day date, transfers bigint
WITH days AS (
  SELECT day FROM UNNEST(sequence(date_add('day', -14, current_date), current_date, interval '1' day)) AS t(day)
)
SELECT d.day, count(t.tx_hash) AS transfers
FROM days d
LEFT JOIN tokens.transfers t ON t.block_date = d.day
GROUP BY 1
ORDER BY 1
