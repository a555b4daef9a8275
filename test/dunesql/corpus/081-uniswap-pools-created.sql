-- Uniswap V3 pools created per chain and fee tier, labelled with token symbols (two joins to tokens.erc20).
-- rows: 5..30
-- columns: blockchain varchar, pair varchar, fee_tier varchar, pool varbinary, created timestamp(3)
SELECT 'ethereum' AS blockchain,
  t0.symbol || '/' || t1.symbol AS pair,
  format('%.2f%%', p.fee / 1e4) AS fee_tier,
  p.pool,
  p.evt_block_time AS created
FROM uniswap_v3_ethereum.Factory_evt_PoolCreated p
LEFT JOIN tokens.erc20 t0 ON t0.blockchain = 'ethereum' AND t0.contract_address = p.token0
LEFT JOIN tokens.erc20 t1 ON t1.blockchain = 'ethereum' AND t1.contract_address = p.token1
ORDER BY created
