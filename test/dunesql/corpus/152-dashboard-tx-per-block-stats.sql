-- Transactions per block statistics (avg, stddev, min, max over integers).
-- rows: 1
-- columns: avg_txs double, stddev_txs double, min_txs integer, max_txs integer
SELECT avg(transaction_count) AS avg_txs, stddev(transaction_count) AS stddev_txs,
  min(transaction_count) AS min_txs, max(transaction_count) AS max_txs
FROM base.blocks
