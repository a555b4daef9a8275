-- Each chain's biggest trade with a correlated scalar subquery.
-- rows: 3
-- columns: blockchain varchar, tx_hash varbinary, amount_usd double
SELECT t.blockchain, t.tx_hash, t.amount_usd
FROM dex.trades t
WHERE t.amount_usd = (SELECT max(amount_usd) FROM dex.trades x WHERE x.blockchain = t.blockchain)
ORDER BY 1
