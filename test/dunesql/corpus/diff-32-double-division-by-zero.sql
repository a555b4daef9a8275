-- A double divided by zero is ±Infinity in Trino, NaN for 0/0 (IEEE 754), where DuckDB's integer
-- division mode would answer NULL; known doubles here: literals, a cast, a table's column and
-- aggregates of it.
-- rows: 1
-- columns: a double, b double, c double, d double, e double, f double, g double
-- result: [["Infinity", "-Infinity", "NaN", "Infinity", 2.5, "Infinity", "-Infinity"]]
SELECT 1e0 / 0 AS a, -1e0 / 0 AS b, 0e0 / 0 AS c, max(price) / 0 AS d, 5 / cast(2 AS double) AS e,
  sum(price) / 0 AS f, -avg(price) / 0 AS g
FROM prices.usd
WHERE price > 0
