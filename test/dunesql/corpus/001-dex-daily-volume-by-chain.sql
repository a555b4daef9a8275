-- Daily DEX volume per chain over the last week (the classic dashboard bar chart).
-- rows: 12..24
-- columns: day timestamp(3), blockchain varchar, volume_usd double, trades bigint
SELECT
  date_trunc('day', block_time) AS day,
  blockchain,
  sum(amount_usd) AS volume_usd,
  count(*) AS trades
FROM dex.trades
WHERE block_time > now() - interval '7' day
GROUP BY 1, 2
ORDER BY 1 DESC, 3 DESC
