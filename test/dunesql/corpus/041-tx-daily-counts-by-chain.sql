-- Daily transactions and active senders per EVM chain (UNION ALL over chain tables).
-- rows: 85..93
-- columns: blockchain varchar, day date, transactions bigint, active_senders bigint
SELECT 'ethereum' AS blockchain, block_date AS day, count(*) AS transactions, count(DISTINCT "from") AS active_senders
FROM ethereum.transactions GROUP BY 1, 2
UNION ALL
SELECT 'base', block_date, count(*), count(DISTINCT "from") FROM base.transactions GROUP BY 1, 2
UNION ALL
SELECT 'arbitrum', block_date, count(*), count(DISTINCT "from") FROM arbitrum.transactions GROUP BY 1, 2
ORDER BY 1, 2
