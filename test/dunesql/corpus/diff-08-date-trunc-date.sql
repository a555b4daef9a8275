-- date_trunc of a date is a date ([same as input]), also when the argument is an aggregate.
-- rows: 1
-- columns: month_start date, last_month date, last_day timestamp(3)
-- result: [["2024-03-01", "2024-03-01", "2024-03-05 00:00:00.000 UTC"]]
-- see: https://trino.io/docs/current/functions/datetime.html#date_trunc
SELECT date_trunc('month', date '2024-03-05') AS month_start,
  date_trunc('month', max(d)) AS last_month,
  date_trunc('day', max(ts)) AS last_day
FROM (VALUES (date '2024-03-05', timestamp '2024-03-05 17:45:00')) AS t (d, ts)
