-- select * over a derived table or a CTE names its unaliased columns _col<N>, as Trino's output
-- does (DuckDB would name them after the expression text: count_star()). Query views are derived
-- tables too.
-- rows: 1
-- columns: _col0 bigint, _col1 integer
-- result: [[3, 3]]
WITH c AS (SELECT count(*), max(x) FROM (VALUES 1, 2, 3) AS t(x))
SELECT * FROM c
