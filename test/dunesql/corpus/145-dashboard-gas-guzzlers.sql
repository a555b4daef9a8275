-- Contracts consuming the most gas in the last week with their share (window over aggregate).
-- rows: 10
-- columns: contract varbinary, gas_used bigint, share_pct decimal(24,1)
SELECT "to" AS contract, sum(gas_used) AS gas_used,
  round(100.0 * sum(gas_used) / sum(sum(gas_used)) OVER (), 2) AS share_pct
FROM ethereum.transactions
WHERE block_time > now() - interval '7' day AND "to" IS NOT NULL
GROUP BY 1
ORDER BY gas_used DESC, contract
LIMIT 10
