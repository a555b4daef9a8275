-- The columns of VALUES are typed by their rows, as Trino types them: a double column divided by
-- zero is ±Infinity (NaN for 0/0), in a derived table and in a CTE alike, and a column mixing
-- integer and double rows is a double.
-- rows: 3
-- columns: x double, by_zero double, mixed double, ratio double
-- result: [[-2.0, "-Infinity", "Infinity", -0.5], [0.0, "NaN", "Infinity", 0.0], [1.5, "Infinity", "Infinity", 0.375]]
WITH r(n, y) AS (VALUES (1, 2e0), (2, 2), (3, 4))
SELECT t.x, t.x / 0 AS by_zero, r.y / 0 AS mixed, t.x / r.y / 2 AS ratio
FROM (VALUES (1, 1.5e0), (2, -2e0), (3, 0e0)) t(n, x)
JOIN r ON r.n = t.n
ORDER BY t.x
