-- A date plus or minus an interval that is not a literal (a derived table's column, a view's) is
-- a date in Trino (the interval may come first in a sum); DuckDB answered a timestamp. The
-- translator types the operands.
-- see: https://trino.io/docs/current/functions/datetime.html#date-and-time-operators
-- rows: 1
-- columns: later date, earlier date, days_on date, interval_first date
-- result: [["2025-03-31", "2023-01-31", "2024-01-03", "2024-01-03"]]
SELECT date '2024-01-31' + months AS later,
  date '2024-03-31' - months AS earlier,
  start_day + days AS days_on,
  days + start_day AS interval_first
FROM (SELECT interval '14' month AS months, interval '2' day AS days, date '2024-01-01' AS start_day)
