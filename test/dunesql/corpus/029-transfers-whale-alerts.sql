-- Whale transfers over $100k in the last 30 days with explorer links built from varbinary hashes.
-- rows: 0..500
-- columns: block_time timestamp(3), blockchain varchar, symbol varchar, amount_usd double, link varchar
SELECT
  block_time,
  blockchain,
  symbol,
  amount_usd,
  'https://etherscan.io/tx/0x' || lower(to_hex(tx_hash)) AS link
FROM tokens.transfers
WHERE amount_usd > 100000
  AND block_time > now() - interval '30' day
ORDER BY amount_usd DESC
