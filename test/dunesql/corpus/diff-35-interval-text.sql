-- Intervals as Trino writes them, in results and cast to varchar: a day-time interval
-- `D HH:MM:SS.mmm` (a timestamp difference too), a `-` before it below zero. DuckDB writes
-- `3 days`, `02:00:00`, and its Parquet writer refused a negative interval outright. (Year-month
-- intervals, `1-2`: diff-40.)
-- see: https://trino.io/docs/current/language/types.html#interval-day-to-second
-- rows: 1
-- columns: days interval day to second, hours interval day to second, elapsed interval day to second, negative interval day to second, fraction interval day to second, text varchar, list array(interval day to second)
-- result: [["3 00:00:00.000", "0 02:00:00.000", "3 14:00:00.000", "-0 01:30:00.000", "0 00:00:01.500", "3 00:00:00.000", ["1 00:00:00.000"]]]
SELECT interval '3' day AS days,
  interval '2' hour AS hours,
  timestamp '2024-01-05 02:00:00' - timestamp '2024-01-01 12:00:00' AS elapsed,
  -(interval '90' minute) AS negative,
  interval '1.5' second AS fraction,
  cast(interval '3' day AS varchar) AS text,
  array[interval '1' day] AS list
