-- Subtotals per chain and grand total with ROLLUP (NULL blockchain = total row).
-- rows: 4
-- columns: blockchain varchar, volume_usd double, trades bigint
SELECT blockchain, sum(amount_usd) AS volume_usd, count(*) AS trades
FROM dex.trades
GROUP BY ROLLUP (blockchain)
ORDER BY blockchain
