-- cbrt as Java computes it (fdlibm): exact for a perfect cube. DuckDB's cube root gave
-- 3.0000000000000004 for 27 and 9999999999.999998 for 1e30.
-- see: https://trino.io/docs/current/functions/math.html#cbrt
-- rows: 1
-- columns: a double, b double, c double
-- result: [[3, -3, 10000000000]]
SELECT cbrt(27.0) AS a, cbrt(-27) AS b, cbrt(1e30) AS c
