-- Weekday x hour heatmap of transactions (extract, day_of_week).
-- rows: 100..168
-- columns: weekday bigint, hour_of_day bigint, txs bigint
SELECT day_of_week(block_time) AS weekday, extract(hour FROM block_time) AS hour_of_day, count(*) AS txs
FROM base.transactions
GROUP BY 1, 2
ORDER BY 1, 2
