-- Transfers by ISO day of week (1 = Monday ... 7 = Sunday in Trino).
-- rows: 7
-- columns: dow bigint, transfers bigint
-- see: https://trino.io/docs/current/functions/datetime.html (day_of_week: ISO day of the week, 1 to 7)
SELECT day_of_week(block_time) AS dow, count(*) AS transfers
FROM tokens.transfers
GROUP BY 1
ORDER BY 1
