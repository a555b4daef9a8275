-- 24h price change per native coin (price now vs price 24 hours earlier, interval arithmetic on timestamps).
-- rows: 2
-- columns: symbol varchar, price_now double, price_24h_ago double, change_pct double
WITH last_minute AS (SELECT max(minute) AS m FROM prices.usd WHERE blockchain IS NULL)
SELECT n.symbol, n.price AS price_now, d.price AS price_24h_ago, round(100 * (n.price / d.price - 1), 2) AS change_pct
FROM prices.usd n
JOIN prices.usd d ON d.symbol = n.symbol AND d.blockchain IS NULL AND d.minute = n.minute - interval '24' hour
WHERE n.blockchain IS NULL AND n.minute = (SELECT m FROM last_minute)
ORDER BY 1
