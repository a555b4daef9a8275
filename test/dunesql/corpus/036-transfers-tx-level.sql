-- Transactions with several token transfers (multi-hop), array_agg of symbols ordered by evt_index.
-- rows: 0..50
-- columns: tx_hash varbinary, transfers bigint, symbols array(varchar)
SELECT tx_hash, count(*) AS transfers, array_agg(symbol ORDER BY evt_index) AS symbols
FROM tokens.transfers
GROUP BY tx_hash
HAVING count(*) > 1
ORDER BY transfers DESC, tx_hash
LIMIT 50
