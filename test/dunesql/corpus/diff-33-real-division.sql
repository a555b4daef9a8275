-- A real divided by a real is a real, by zero too (Infinity), as in Trino.
-- rows: 1
-- columns: a real, b real
-- result: [[0.25, "Infinity"]]
SELECT cast(1 AS real) / cast(4 AS real) AS a, cast(1 AS real) / 0 AS b
