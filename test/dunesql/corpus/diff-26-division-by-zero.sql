-- Trino fails an integer or decimal division or remainder by zero; DuckDB would answer NULL and the
-- query would pass locally only to fail on Athena. (try() gives NULL: diff-16.)
-- see: https://trino.io/docs/current/functions/math.html#mathematical-operators
-- error: Division by zero
SELECT blockchain, count(*) / (count(*) - count(*)) AS per_nothing
FROM dex.trades
GROUP BY 1
