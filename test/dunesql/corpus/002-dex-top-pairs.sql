-- Top trading pairs by USD volume in the last 30 days.
-- rows: 5..10
-- columns: token_pair varchar, volume_usd double, trades bigint, traders bigint
SELECT
  token_pair,
  sum(amount_usd) AS volume_usd,
  count(*) AS trades,
  count(DISTINCT taker) AS traders
FROM dex.trades
WHERE block_time >= now() - interval '30' day
  AND token_pair IS NOT NULL
GROUP BY token_pair
ORDER BY volume_usd DESC
LIMIT 10
