-- Paged leaderboard: OFFSET then LIMIT (Trino's order of the clauses).
-- rows: 10
-- columns: taker varbinary, volume_usd double
SELECT taker, sum(amount_usd) AS volume_usd
FROM dex.trades
GROUP BY 1
ORDER BY volume_usd DESC, taker
OFFSET 10 ROWS
LIMIT 10
