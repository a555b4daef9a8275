-- Transaction envelope types per chain, pivoted with FILTER clauses.
-- rows: 3
-- columns: blockchain varchar, dynamic_fee bigint, legacy bigint
SELECT blockchain,
  count(*) FILTER (WHERE type = 'DynamicFee') AS dynamic_fee,
  count(*) FILTER (WHERE type = 'Legacy') AS legacy
FROM (
  SELECT 'ethereum' AS blockchain, type FROM ethereum.transactions
  UNION ALL SELECT 'base', type FROM base.transactions
  UNION ALL SELECT 'arbitrum', type FROM arbitrum.transactions
) t
GROUP BY 1
ORDER BY 1
