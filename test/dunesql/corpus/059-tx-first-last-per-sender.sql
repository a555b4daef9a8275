-- First and last transaction hash per sender (min_by / max_by on varbinary).
-- rows: 20
-- columns: sender varbinary, first_tx varbinary, last_tx varbinary, txs bigint
SELECT "from" AS sender, min_by(hash, block_time) AS first_tx, max_by(hash, block_time) AS last_tx, count(*) AS txs
FROM arbitrum.transactions
GROUP BY 1
ORDER BY txs DESC, sender
LIMIT 20
