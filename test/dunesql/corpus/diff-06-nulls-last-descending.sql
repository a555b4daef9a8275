-- NULLs sort last in descending order too (PostgreSQL and DuckDB's own default would put them first).
-- rows: 3
-- columns: x integer
-- result: [[3], [1], [null]]
-- see: https://trino.io/docs/current/sql/select.html#order-by-clause
SELECT x FROM (VALUES 3, NULL, 1) AS t (x) ORDER BY x DESC
