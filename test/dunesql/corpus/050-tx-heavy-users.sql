-- Power users: senders with 10+ transactions and their activity span in days (date_diff).
-- rows: 1..50
-- columns: sender varbinary, txs bigint, active_days bigint, span_days bigint
SELECT "from" AS sender, count(*) AS txs, count(DISTINCT block_date) AS active_days,
  date_diff('day', min(block_time), max(block_time)) AS span_days
FROM ethereum.transactions
GROUP BY 1
HAVING count(*) >= 10
ORDER BY txs DESC
LIMIT 50
