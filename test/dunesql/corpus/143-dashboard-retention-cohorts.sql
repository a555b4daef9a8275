-- Weekly retention cohorts of DEX traders (first week vs active week, date_diff in weeks).
-- rows: 5..25
-- columns: cohort_week timestamp(3), weeks_later bigint, traders bigint
WITH activity AS (
  SELECT DISTINCT taker, date_trunc('week', block_time) AS week FROM dex.trades
), cohorts AS (
  SELECT taker, min(week) AS cohort_week FROM activity GROUP BY 1
)
SELECT c.cohort_week, date_diff('week', c.cohort_week, a.week) AS weeks_later, count(DISTINCT a.taker) AS traders
FROM activity a
JOIN cohorts c ON c.taker = a.taker
GROUP BY 1, 2
ORDER BY 1, 2
