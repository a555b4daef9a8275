-- Chain market share of DEX volume (ratio to the grand total window).
-- rows: 3
-- columns: blockchain varchar, volume_usd double, share double
SELECT
  blockchain,
  sum(amount_usd) AS volume_usd,
  sum(amount_usd) / sum(sum(amount_usd)) OVER () AS share
FROM dex.trades
WHERE block_time > now() - interval '30' day
GROUP BY blockchain
ORDER BY share DESC
