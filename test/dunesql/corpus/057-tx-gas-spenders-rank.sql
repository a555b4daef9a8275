-- Top gas spenders per chain with dense_rank and ntile quartiles.
-- rows: 15
-- columns: blockchain varchar, sender varbinary, gas bigint, gas_rank bigint, quartile bigint
WITH spend AS (
  SELECT 'base' AS blockchain, "from" AS sender, sum(gas_used) AS gas FROM base.transactions GROUP BY 1, 2
  UNION ALL
  SELECT 'arbitrum', "from", sum(gas_used) FROM arbitrum.transactions GROUP BY 1, 2
  UNION ALL
  SELECT 'ethereum', "from", sum(gas_used) FROM ethereum.transactions GROUP BY 1, 2
), ranked AS (
  SELECT *, dense_rank() OVER (PARTITION BY blockchain ORDER BY gas DESC) AS gas_rank,
    ntile(4) OVER (PARTITION BY blockchain ORDER BY gas DESC) AS quartile
  FROM spend
)
SELECT blockchain, sender, gas, gas_rank, quartile FROM ranked WHERE gas_rank <= 5
ORDER BY blockchain, gas_rank, sender
LIMIT 15
