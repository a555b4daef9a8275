-- Swaps across the three chains' decoded tables (UNION ALL with a chain label), daily.
-- rows: 80..93
-- columns: blockchain varchar, day date, swaps bigint
SELECT blockchain, day, count(*) AS swaps FROM (
  SELECT 'ethereum' AS blockchain, evt_block_date AS day FROM uniswap_v3_ethereum.Pair_evt_Swap
  UNION ALL SELECT 'base', evt_block_date FROM uniswap_v3_base.Pair_evt_Swap
  UNION ALL SELECT 'arbitrum', evt_block_date FROM uniswap_v3_arbitrum.Pair_evt_Swap
) s
GROUP BY 1, 2
ORDER BY 1, 2
