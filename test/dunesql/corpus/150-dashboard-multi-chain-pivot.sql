-- Daily volume pivoted into one column per chain (sum(CASE ...) pivot).
-- rows: 28..31
-- columns: block_date date, ethereum double, base double, arbitrum double
SELECT block_date,
  sum(CASE WHEN blockchain = 'ethereum' THEN amount_usd ELSE 0 END) AS ethereum,
  sum(CASE WHEN blockchain = 'base' THEN amount_usd ELSE 0 END) AS base,
  sum(CASE WHEN blockchain = 'arbitrum' THEN amount_usd ELSE 0 END) AS arbitrum
FROM dex.trades
GROUP BY 1
ORDER BY 1
