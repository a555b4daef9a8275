-- avg of a decimal is a decimal of the same type in Trino, rounded half away from zero (also over
-- a window, and with DISTINCT); DuckDB's was a double (1.875 where Trino answers 1.88).
-- see: https://trino.io/docs/current/functions/aggregate.html#avg
-- rows: 2
-- columns: g varchar, mean decimal(3,2), distinct_mean decimal(3,2), windowed decimal(3,2), halved decimal(3,2)
-- result: [["a", 2.00, 1.88, 2.00, 1.00], ["b", 1.00, 1.00, 1.00, 0.50]]
SELECT g,
  avg(x) AS mean,
  avg(DISTINCT x) AS distinct_mean,
  avg(avg(x)) OVER (PARTITION BY g) AS windowed,
  avg(x) / 2 AS halved
FROM (VALUES ('a', 1.5), ('a', 2.25), ('a', 2.25), ('b', 1.0)) AS t(g, x)
GROUP BY g
ORDER BY g
