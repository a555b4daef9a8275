-- Raw transfer amounts valued with prices.usd decimals (uint256 / power(10, decimals) * price).
-- rows: 50
-- columns: evt_block_time timestamp(3), symbol varchar, amount double, usd double
SELECT t.evt_block_time, p.symbol,
  t.value / power(10, p.decimals) AS amount,
  t.value / power(10, p.decimals) * p.price AS usd
FROM erc20_arbitrum.evt_Transfer t
JOIN prices.usd p ON p.blockchain = 'arbitrum' AND p.contract_address = t.contract_address
  AND p.minute = date_trunc('minute', t.evt_block_time)
ORDER BY t.evt_block_time DESC, t.evt_index
LIMIT 50
