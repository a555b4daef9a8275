-- Stablecoin peg deviation: max absolute deviation from $1 per symbol and chain.
-- rows: 8..12
-- columns: blockchain varchar, symbol varchar, max_deviation double
SELECT blockchain, symbol, max(abs(price - 1)) AS max_deviation
FROM prices.usd
WHERE symbol IN ('USDC', 'USDT', 'DAI', 'USDC.e', 'USDbC')
  AND minute > now() - interval '3' day
GROUP BY 1, 2
ORDER BY 1, 2
