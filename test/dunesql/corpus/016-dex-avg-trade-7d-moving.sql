-- 7-day moving average of daily DEX volume (avg window with a ROWS frame).
-- rows: 28..31
-- columns: block_date date, volume_usd double, volume_7d_avg double
WITH daily AS (
  SELECT block_date, sum(amount_usd) AS volume_usd FROM dex.trades GROUP BY 1
)
SELECT
  block_date,
  volume_usd,
  avg(volume_usd) OVER (ORDER BY block_date ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS volume_7d_avg
FROM daily
ORDER BY block_date
