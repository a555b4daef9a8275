-- Trades by router (tx_to) labelled with contracts, left join on varbinary.
-- rows: 1..10
-- columns: blockchain varchar, router varbinary, router_name varchar, trades bigint
SELECT
  t.blockchain,
  t.tx_to AS router,
  coalesce(c.namespace || '.' || c.name, 'unknown') AS router_name,
  count(*) AS trades
FROM dex.trades t
LEFT JOIN ethereum.contracts c ON c.address = t.tx_to AND t.blockchain = 'ethereum'
GROUP BY 1, 2, 3
ORDER BY trades DESC
LIMIT 10
