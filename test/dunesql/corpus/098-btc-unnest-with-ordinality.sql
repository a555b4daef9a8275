-- UNNEST ... WITH ORDINALITY numbers the inputs from 1.
-- rows: 1
-- columns: max_position bigint, inputs bigint
SELECT max(n) AS max_position, count(*) AS inputs
FROM bitcoin.transactions t
CROSS JOIN UNNEST(t.inputs) WITH ORDINALITY AS i(index, spent_tx_id, spent_output_number, value, address, type, n)
WHERE NOT t.is_coinbase
