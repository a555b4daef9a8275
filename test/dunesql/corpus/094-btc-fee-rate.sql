-- Fee rate in sat/vB per day (decimal * 1e8 / bigint), median via approx_percentile.
-- rows: 25..31
-- columns: day date, median_sat_per_vb double, txs bigint
SELECT block_date AS day,
  approx_percentile(cast(fee AS double) * 1e8 / virtual_size, 0.5) AS median_sat_per_vb,
  count(*) AS txs
FROM bitcoin.transactions
WHERE NOT is_coinbase
GROUP BY 1
ORDER BY 1
