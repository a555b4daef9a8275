-- Trades by hour of day (UTC activity cycle), hour() extraction.
-- rows: 20..24
-- columns: hour_of_day bigint, trades bigint, avg_trade_usd double
SELECT
  hour(block_time) AS hour_of_day,
  count(*) AS trades,
  avg(amount_usd) AS avg_trade_usd
FROM dex.trades
GROUP BY 1
ORDER BY 1
