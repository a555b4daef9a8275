-- Per-trader pair lists (array_agg DISTINCT) and how many pairs (cardinality).
-- rows: 20
-- columns: taker varbinary, pairs array(varchar), pair_count bigint
SELECT taker, array_agg(DISTINCT token_pair) AS pairs, cardinality(array_agg(DISTINCT token_pair)) AS pair_count
FROM dex.trades
GROUP BY 1
ORDER BY pair_count DESC, taker
LIMIT 20
