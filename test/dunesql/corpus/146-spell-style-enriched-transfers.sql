-- A Spellbook-style model: raw Transfer events enriched with token metadata and USD prices, incremental filter.
-- rows: 100
-- columns: blockchain varchar, block_month date, block_time timestamp(3), tx_hash varbinary, evt_index integer, symbol varchar, amount_raw uint256, amount double, amount_usd double
WITH base_transfers AS (
  SELECT 'base' AS blockchain, evt_block_time AS block_time, evt_tx_hash AS tx_hash, evt_index, contract_address, value AS amount_raw
  FROM erc20_base.evt_Transfer
  WHERE evt_block_time >= date_trunc('day', now() - interval '7' day)
)
SELECT
  t.blockchain,
  cast(date_trunc('month', t.block_time) AS date) AS block_month,
  t.block_time,
  t.tx_hash,
  t.evt_index,
  tok.symbol,
  t.amount_raw,
  t.amount_raw / power(10, tok.decimals) AS amount,
  t.amount_raw / power(10, tok.decimals) * p.price AS amount_usd
FROM base_transfers t
LEFT JOIN tokens.erc20 tok ON tok.blockchain = t.blockchain AND tok.contract_address = t.contract_address
LEFT JOIN prices.usd p ON p.blockchain = t.blockchain AND p.contract_address = t.contract_address
  AND p.minute = date_trunc('minute', t.block_time)
ORDER BY t.block_time DESC, t.evt_index
LIMIT 100
