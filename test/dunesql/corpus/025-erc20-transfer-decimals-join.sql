-- Decoded Transfer events scaled by tokens.erc20 decimals (Spellbook-style enrichment).
-- rows: 100
-- columns: evt_block_time timestamp(3), symbol varchar, sender varbinary, receiver varbinary, amount double
SELECT
  t.evt_block_time,
  tok.symbol,
  t."from" AS sender,
  t."to" AS receiver,
  cast(t.value AS double) / power(10, tok.decimals) AS amount
FROM erc20_ethereum.evt_Transfer t
JOIN tokens.erc20 tok
  ON tok.blockchain = 'ethereum'
  AND tok.contract_address = t.contract_address
WHERE t.evt_block_time > now() - interval '7' day
ORDER BY t.evt_block_time DESC, t.evt_index
LIMIT 100
