-- BTC received per address type (unnest outputs, group by the row field).
-- rows: 1..10
-- columns: type varchar, outputs bigint, btc decimal(38,8)
SELECT o.type, count(*) AS outputs, sum(o.value) AS btc
FROM bitcoin.transactions t
CROSS JOIN UNNEST(t.outputs) AS o(index, value, address, type)
GROUP BY 1
ORDER BY btc DESC
