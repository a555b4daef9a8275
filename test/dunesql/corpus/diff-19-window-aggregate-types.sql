-- Window aggregates keep Trino's types: a running sum of a count or of a bigint column stays bigint, count_if is bigint.
-- rows: 3
-- columns: blockchain varchar, trades bigint, running_trades bigint, running_blocks bigint, busy_chains bigint
WITH per_chain AS (
  SELECT blockchain, count(*) AS trades, sum(count(*)) OVER (ORDER BY blockchain) AS running_trades, max(block_number) AS last_block
  FROM dex.trades
  GROUP BY blockchain
)
SELECT blockchain, trades, running_trades,
  sum(last_block) OVER (ORDER BY blockchain) AS running_blocks,
  count_if(trades > 10) OVER () AS busy_chains
FROM per_chain
ORDER BY blockchain
