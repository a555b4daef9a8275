-- first_value / last_value with a full frame: first and last price of the day per row.
-- rows: 29..31
-- columns: day date, open double, close double
SELECT DISTINCT cast(minute AS date) AS day,
  first_value(price) OVER (PARTITION BY cast(minute AS date) ORDER BY minute ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS open,
  last_value(price) OVER (PARTITION BY cast(minute AS date) ORDER BY minute ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS close
FROM prices.usd
WHERE symbol = 'BTC' AND blockchain IS NULL
ORDER BY 1
