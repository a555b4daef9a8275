-- Cumulative DEX volume per day (running sum window with an explicit frame).
-- rows: 28..31
-- columns: block_date date, daily_volume double, cumulative_volume double
SELECT
  block_date,
  sum(amount_usd) AS daily_volume,
  sum(sum(amount_usd)) OVER (ORDER BY block_date ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cumulative_volume
FROM dex.trades
GROUP BY block_date
ORDER BY block_date
