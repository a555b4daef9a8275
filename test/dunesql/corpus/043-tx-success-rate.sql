-- Reverted transaction share per chain (boolean aggregates, count_if).
-- rows: 3
-- columns: blockchain varchar, transactions bigint, failed bigint, failure_rate double, any_failed boolean
SELECT blockchain, count(*) AS transactions, count_if(NOT success) AS failed,
  cast(count_if(NOT success) AS double) / count(*) AS failure_rate, bool_or(NOT success) AS any_failed
FROM (
  SELECT 'ethereum' AS blockchain, success FROM ethereum.transactions
  UNION ALL SELECT 'base', success FROM base.transactions
  UNION ALL SELECT 'arbitrum', success FROM arbitrum.transactions
) t
GROUP BY 1
ORDER BY 1
