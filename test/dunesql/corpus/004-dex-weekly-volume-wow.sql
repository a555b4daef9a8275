-- Weekly DEX volume with week-over-week change (lag window).
-- rows: 4..6
-- columns: week timestamp(3), volume_usd double, previous_week double, wow_change double
WITH weekly AS (
  SELECT date_trunc('week', block_time) AS week, sum(amount_usd) AS volume_usd
  FROM dex.trades
  GROUP BY 1
)
SELECT
  week,
  volume_usd,
  lag(volume_usd) OVER (ORDER BY week) AS previous_week,
  volume_usd / lag(volume_usd) OVER (ORDER BY week) - 1 AS wow_change
FROM weekly
ORDER BY week
