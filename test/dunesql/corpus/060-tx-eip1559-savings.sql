-- EIP-1559 savings: (max fee - paid price) * gas, with NULL-safe coalesce for legacy transactions.
-- rows: 1
-- columns: dynamic_txs bigint, saved_eth double
SELECT count(max_fee_per_gas) AS dynamic_txs,
  sum(coalesce(max_fee_per_gas - gas_price, 0) * gas_used) / 1e18 AS saved_eth
FROM ethereum.transactions
WHERE block_time > now() - interval '14' day
