-- Logs per transaction with the transaction's gas (join logs to transactions on tx_hash = hash).
-- rows: 25
-- columns: tx_hash varbinary, logs bigint, gas_used bigint
SELECT l.tx_hash, count(*) AS logs, max(t.gas_used) AS gas_used
FROM arbitrum.logs l
JOIN arbitrum.transactions t ON t.hash = l.tx_hash AND t.block_number = l.block_number
GROUP BY 1
ORDER BY logs DESC, gas_used DESC, l.tx_hash
LIMIT 25
