-- Approximate traders and median trade size per chain (approx_distinct, approx_percentile).
-- rows: 3
-- columns: blockchain varchar, traders bigint, median_trade_usd double, p90_trade_usd double
SELECT
  blockchain,
  approx_distinct(taker) AS traders,
  approx_percentile(amount_usd, 0.5) AS median_trade_usd,
  approx_percentile(amount_usd, 0.9) AS p90_trade_usd
FROM dex.trades
WHERE block_time > now() - interval '30' day
GROUP BY blockchain
ORDER BY blockchain
