-- approx_percentile is also a window function, typed as the aggregate: a bigint for integers, a
-- double for decimals and doubles, an array for an array of percentages. DuckDB has no
-- approx_percentile (the aggregate is a macro, which cannot take an OVER clause): the query failed
-- with "Aggregate Function with name approx_percentile does not exist".
-- see: https://trino.io/docs/current/functions/window.html#aggregate-functions
-- rows: 4
-- columns: g varchar, median bigint, median_price double, range array(bigint)
-- result: [["a", 2, 2.5, [1, 10]], ["a", 2, 2.5, [1, 10]], ["a", 2, 2.5, [1, 10]], ["b", 10, 10.5, [1, 10]]]
SELECT g,
  approx_percentile(x, 0.5) OVER (PARTITION BY g) AS median,
  approx_percentile(price, 0.5) OVER (PARTITION BY g) AS median_price,
  approx_percentile(x, array[0.0, 1.0]) OVER () AS range
FROM (VALUES (1, 1.5, 'a'), (2, 2.5, 'a'), (3, 3.5, 'a'), (10, 10.5, 'b')) AS t(x, price, g)
ORDER BY g, x
