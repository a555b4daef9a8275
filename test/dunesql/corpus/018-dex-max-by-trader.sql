-- Biggest trade per trader with max_by/min_by (Trino aggregate functions).
-- rows: 20
-- columns: taker varbinary, biggest_trade_pair varchar, smallest_trade_pair varchar, max_usd double
SELECT
  taker,
  max_by(token_pair, amount_usd) AS biggest_trade_pair,
  min_by(token_pair, amount_usd) AS smallest_trade_pair,
  max(amount_usd) AS max_usd
FROM dex.trades
GROUP BY taker
ORDER BY max_usd DESC
LIMIT 20
