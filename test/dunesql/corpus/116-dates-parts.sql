-- Date parts: year, month, day, quarter, week, day_of_year, last_day_of_month.
-- rows: 1
-- columns: y bigint, m bigint, d bigint, q bigint, w bigint, doy bigint, month_end date
-- result: [[2024, 2, 29, 1, 9, 60, "2024-02-29"]]
SELECT year(date '2024-02-29') AS y, month(date '2024-02-29') AS m, day(date '2024-02-29') AS d,
  quarter(date '2024-02-29') AS q, week(date '2024-02-29') AS w, day_of_year(date '2024-02-29') AS doy,
  last_day_of_month(date '2024-02-10') AS month_end
