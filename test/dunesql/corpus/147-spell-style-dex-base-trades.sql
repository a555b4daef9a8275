-- A Spellbook-style base_trades model from decoded swaps: amounts by sign, bought/sold token by direction.
-- rows: 50
-- columns: block_time timestamp(3), token_bought_address varbinary, token_sold_address varbinary, token_bought_amount_raw uint256, token_sold_amount_raw uint256, tx_hash varbinary
SELECT
  s.evt_block_time AS block_time,
  CASE WHEN s.amount0 < 0 THEN p.token0 ELSE p.token1 END AS token_bought_address,
  CASE WHEN s.amount0 < 0 THEN p.token1 ELSE p.token0 END AS token_sold_address,
  cast(abs(CASE WHEN s.amount0 < 0 THEN s.amount0 ELSE s.amount1 END) AS uint256) AS token_bought_amount_raw,
  cast(abs(CASE WHEN s.amount0 < 0 THEN s.amount1 ELSE s.amount0 END) AS uint256) AS token_sold_amount_raw,
  s.evt_tx_hash AS tx_hash
FROM uniswap_v3_ethereum.Pair_evt_Swap s
JOIN uniswap_v3_ethereum.Factory_evt_PoolCreated p ON p.pool = s.contract_address
ORDER BY s.evt_block_time DESC, s.evt_index
LIMIT 50
