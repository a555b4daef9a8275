-- Largest Bitcoin outputs: CROSS JOIN UNNEST of the outputs array of rows (fields become columns).
-- rows: 20
-- columns: tx_id varbinary, output_index integer, value decimal(18,8), address varchar
SELECT t.id AS tx_id, o.index AS output_index, o.value, o.address
FROM bitcoin.transactions t
CROSS JOIN UNNEST(t.outputs) AS o(index, value, address, type)
WHERE NOT t.is_coinbase
ORDER BY o.value DESC, t.id, o.index
LIMIT 20
