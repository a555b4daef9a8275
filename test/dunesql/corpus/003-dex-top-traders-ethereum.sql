-- Top Ethereum DEX traders by volume, addresses as varbinary.
-- rows: 10..25
-- columns: trader varbinary, volume_usd double, trades bigint, first_trade timestamp(3), last_trade timestamp(3)
SELECT
  taker AS trader,
  sum(amount_usd) AS volume_usd,
  count(*) AS trades,
  min(block_time) AS first_trade,
  max(block_time) AS last_trade
FROM dex.trades
WHERE blockchain = 'ethereum'
  AND block_time > now() - interval '30' day
GROUP BY taker
ORDER BY volume_usd DESC
LIMIT 25
