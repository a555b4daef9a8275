-- A negative array subscript fails with Trino's message (DuckDB counted back from the end).
-- error: Array subscript is negative: -1
SELECT x[-1] FROM (VALUES (array[1, 2, 3])) AS t (x)
