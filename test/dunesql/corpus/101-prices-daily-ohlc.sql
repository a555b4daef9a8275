-- Daily open/high/low/close of ETH from minute prices (min_by / max_by on the minute).
-- rows: 29..31
-- columns: day timestamp(3), open double, high double, low double, close double
SELECT date_trunc('day', minute) AS day,
  min_by(price, minute) AS open, max(price) AS high, min(price) AS low, max_by(price, minute) AS close
FROM prices.usd
WHERE symbol = 'ETH' AND blockchain IS NULL
GROUP BY 1
ORDER BY 1
