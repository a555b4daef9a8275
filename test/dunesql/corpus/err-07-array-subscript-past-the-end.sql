-- An array subscript past the end fails with Trino's message (DuckDB answered NULL).
-- error: Array subscript must be less than or equal to array length: 3 > 2
SELECT split('a,b', ',')[3] AS third
