-- Minutes between Bitcoin blocks (date_diff in seconds over lag).
-- rows: 1
-- columns: avg_minutes double, blocks bigint
SELECT avg(seconds) / 60.0 AS avg_minutes, count(*) AS blocks
FROM (
  SELECT date_diff('second', lag(time) OVER (ORDER BY height), time) AS seconds FROM bitcoin.blocks
) t
WHERE seconds IS NOT NULL
