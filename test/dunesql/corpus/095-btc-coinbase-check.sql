-- Coinbase output equals block reward (join transactions to blocks on height).
-- rows: 1
-- columns: blocks bigint, matching bigint
SELECT count(*) AS blocks, count_if(t.output_value = b.total_reward) AS matching
FROM bitcoin.blocks b
JOIN bitcoin.transactions t ON t.block_height = b.height AND t.is_coinbase
