-- Hourly ETH return volatility over the last week (stddev of log returns, ln, lag).
-- rows: 1
-- columns: hourly_stddev double, hours bigint
WITH hourly AS (
  SELECT date_trunc('hour', minute) AS hour, max_by(price, minute) AS close
  FROM prices.usd
  WHERE symbol = 'ETH' AND blockchain IS NULL AND minute > now() - interval '7' day
  GROUP BY 1
), returns AS (
  SELECT ln(close / lag(close) OVER (ORDER BY hour)) AS r FROM hourly
)
SELECT stddev(r) AS hourly_stddev, count(r) AS hours FROM returns
