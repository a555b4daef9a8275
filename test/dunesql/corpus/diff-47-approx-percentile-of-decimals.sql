-- approx_percentile reads a decimal as a double and answers a double, as Trino's (which takes
-- bigint or double): DuckDB's approx_quantile of a decimal answered its unscaled storage integer
-- (a smallint 15 or 2 for 1.5). Integers give a bigint.
-- see: https://trino.io/docs/current/functions/aggregate.html#approx_percentile
-- rows: 1
-- columns: median double, quartiles array(double), whole bigint
-- result: [[1.5, [1.5, 1.5], 2]]
SELECT approx_percentile(x, 0.5) AS median,
  approx_percentile(x, array[0.25, 0.75]) AS quartiles,
  approx_percentile(n, 0.5) AS whole
FROM (VALUES (1.5, 2), (1.5, 2), (1.5, 2)) AS t(x, n)
