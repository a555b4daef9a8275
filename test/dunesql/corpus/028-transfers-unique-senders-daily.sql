-- Unique senders and receivers per day (approx_distinct on varbinary addresses).
-- rows: 28..31
-- columns: block_date date, senders bigint, receivers bigint
SELECT block_date, approx_distinct("from") AS senders, approx_distinct("to") AS receivers
FROM tokens.transfers
GROUP BY 1
ORDER BY 1
