-- Daily transferred USD per token symbol over the last week (tokens.transfers).
-- rows: 40..200
-- columns: day date, symbol varchar, transfers bigint, volume_usd double
SELECT block_date AS day, symbol, count(*) AS transfers, sum(amount_usd) AS volume_usd
FROM tokens.transfers
WHERE block_time >= now() - interval '7' day
GROUP BY 1, 2
ORDER BY 1, 4 DESC
