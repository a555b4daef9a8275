-- Priority fee percentiles in gwei per day (approx_percentile over bigint / 1e9).
-- rows: 6..8
-- columns: day date, p50_gwei double, p90_gwei double
SELECT block_date AS day,
  approx_percentile(priority_fee_per_gas / 1e9, 0.5) AS p50_gwei,
  approx_percentile(priority_fee_per_gas / 1e9, 0.9) AS p90_gwei
FROM ethereum.transactions
WHERE block_date >= current_date - interval '7' day
GROUP BY 1
ORDER BY 1
