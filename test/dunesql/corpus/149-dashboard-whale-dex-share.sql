-- Share of DEX volume from the top 1% of traders (ntile and a HAVING-free CTE chain).
-- rows: 1
-- columns: top_percentile_share double, traders bigint
WITH v AS (
  SELECT taker, sum(amount_usd) AS volume FROM dex.trades GROUP BY 1
), tiles AS (
  SELECT taker, volume, ntile(100) OVER (ORDER BY volume DESC) AS tile FROM v
)
SELECT sum(volume) FILTER (WHERE tile = 1) / sum(volume) AS top_percentile_share, count(*) AS traders
FROM tiles
