-- Seconds between consecutive blocks on Base (lag on timestamps, to_unixtime).
-- rows: 1
-- columns: avg_block_seconds double, max_block_seconds double
SELECT avg(gap) AS avg_block_seconds, max(gap) AS max_block_seconds
FROM (
  SELECT to_unixtime(time) - to_unixtime(lag(time) OVER (ORDER BY number)) AS gap
  FROM base.blocks
) t
WHERE gap IS NOT NULL
