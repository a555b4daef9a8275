-- Trader percentiles by volume: percent_rank, cume_dist.
-- rows: 10
-- columns: taker varbinary, volume_usd double, pct_rank double, cume double
SELECT taker, volume_usd, percent_rank() OVER (ORDER BY volume_usd) AS pct_rank, cume_dist() OVER (ORDER BY volume_usd) AS cume
FROM (SELECT taker, sum(amount_usd) AS volume_usd FROM dex.trades GROUP BY 1) v
ORDER BY volume_usd DESC, taker
LIMIT 10
