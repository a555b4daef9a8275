-- ETH/BTC ratio per day (self-join on the minute of two native coins, then daily average).
-- rows: 29..31
-- columns: day date, eth_btc double
SELECT cast(e.minute AS date) AS day, avg(e.price / b.price) AS eth_btc
FROM prices.usd e
JOIN prices.usd b ON b.minute = e.minute AND b.symbol = 'BTC' AND b.blockchain IS NULL
WHERE e.symbol = 'ETH' AND e.blockchain IS NULL
GROUP BY 1
ORDER BY 1
