-- Share of each token in transfer USD volume per chain (partitioned ratio).
-- rows: 15..30
-- columns: blockchain varchar, symbol varchar, volume_usd double, pct double
SELECT
  blockchain,
  symbol,
  sum(amount_usd) AS volume_usd,
  round(100 * sum(amount_usd) / sum(sum(amount_usd)) OVER (PARTITION BY blockchain), 2) AS pct
FROM tokens.transfers
GROUP BY 1, 2
ORDER BY 1, 3 DESC
