-- Block transaction_count vs counted transactions (join blocks to transactions).
-- rows: 1
-- columns: blocks bigint, mismatched bigint
WITH counted AS (
  SELECT block_number, count(*) AS n FROM ethereum.transactions GROUP BY 1
)
SELECT count(*) AS blocks, count_if(coalesce(c.n, 0) <> b.transaction_count) AS mismatched
FROM ethereum.blocks b
LEFT JOIN counted c ON c.block_number = b.number
