-- date_trunc over aggregates of real columns keeps each column's type (date stays date, timestamp stays timestamp).
-- rows: 1
-- columns: first_month date, last_hour timestamp(3)
SELECT date_trunc('month', min(block_date)) AS first_month, date_trunc('hour', max(block_time)) AS last_hour
FROM dex.trades
