-- sequence(start, stop) steps down when stop is below start, as in Trino (DuckDB answered an empty
-- array), for integers and dates alike. A month step adds whole months to the start, so the end of
-- a month stays the end of the next (Jan 31, Feb 29, Mar 31), where DuckDB stepped from the
-- previous entry (Mar 29). Exactly 10,000 entries is allowed (err-11 is one more).
-- see: https://trino.io/docs/current/functions/array.html#sequence
-- rows: 1
-- columns: down array(bigint), days_down array(date), month_ends array(date), month_ends_back array(date), most bigint
-- result: [[[3, 2, 1], ["2024-01-03", "2024-01-02", "2024-01-01"], ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"], ["2024-03-31", "2024-02-29", "2024-01-31"], 10000]]
SELECT sequence(3, 1) AS down,
  sequence(date '2024-01-03', date '2024-01-01') AS days_down,
  sequence(date '2024-01-31', date '2024-04-30', interval '1' month) AS month_ends,
  sequence(date '2024-03-31', date '2024-01-01', interval '-1' month) AS month_ends_back,
  cardinality(sequence(1, 10000)) AS most
