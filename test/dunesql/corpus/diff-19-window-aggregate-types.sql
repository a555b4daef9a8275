-- Window aggregates keep Trino's types: running count is bigint, running sum of a bigint stays bigint.
-- rows: 3
-- columns: blockchain varchar, trades bigint, running_trades bigint, running_gas bigint
SELECT blockchain, count(*) AS trades, sum(count(*)) OVER (ORDER BY blockchain) AS running_trades,
  sum(max(block_number)) OVER (ORDER BY blockchain) AS running_gas
FROM dex.trades
GROUP BY blockchain
ORDER BY blockchain
