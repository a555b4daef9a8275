-- Pools ranked by volume within each chain (rank window, top 3 per chain).
-- rows: 6..9
-- columns: blockchain varchar, pool varbinary, token_pair varchar, volume_usd double, pool_rank bigint
WITH pools AS (
  SELECT blockchain, project_contract_address AS pool, token_pair, sum(amount_usd) AS volume_usd
  FROM dex.trades
  GROUP BY 1, 2, 3
), ranked AS (
  SELECT *, rank() OVER (PARTITION BY blockchain ORDER BY volume_usd DESC) AS pool_rank
  FROM pools
)
SELECT blockchain, pool, token_pair, volume_usd, pool_rank
FROM ranked
WHERE pool_rank <= 3
ORDER BY blockchain, pool_rank
