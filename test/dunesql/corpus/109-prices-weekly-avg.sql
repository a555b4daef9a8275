-- Weekly average BTC price (date_trunc week starts Monday).
-- rows: 5..6
-- columns: week timestamp(3), avg_price double, weekday bigint
SELECT date_trunc('week', minute) AS week, avg(price) AS avg_price, day_of_week(date_trunc('week', minute)) AS weekday
FROM prices.usd
WHERE symbol = 'BTC' AND blockchain IS NULL
GROUP BY 1, 3
ORDER BY 1
