-- A division with a decimal operand is a decimal division in Trino: its scale is the larger of
-- the two, rounded half away from zero (1.0 / 3 is 0.3; `count(*) * 100.0 / total` has one
-- decimal place). DuckDB divided in double precision: locally 0.333…, on Athena 0.3.
-- see: https://trino.io/docs/current/functions/decimal.html
-- see: https://github.com/trinodb/trino/issues/17651
-- rows: 1
-- columns: third decimal(2,1), two_thirds decimal(2,1), negative decimal(2,1), half decimal(12,1), hundredths decimal(3,2), tiny decimal(12,1), scaled decimal(7,3), rounded decimal(10,0), share decimal(23,1)
-- result: [[0.3, 0.7, -0.7, 3.5, 0.33, 0.0, 1000.000, 4, 33.3]]
SELECT 1.0 / 3 AS third,
  2.0 / 3 AS two_thirds,
  -2.0 / 3 AS negative,
  7 / 2.0 AS half,
  1.00 / 3 AS hundredths,
  1.0 * 1 / 21 AS tiny,
  1.0 / 0.001 AS scaled,
  cast(7 AS decimal(10, 0)) / 2 AS rounded,
  hits * 100.0 / 3 AS share
FROM (SELECT count(*) AS hits FROM (VALUES 1) AS v(x)) AS counted
