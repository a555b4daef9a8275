-- NULLs sort last in ascending order.
-- rows: 3
-- columns: x integer
-- result: [[1], [3], [null]]
-- see: https://trino.io/docs/current/sql/select.html#order-by-clause ("The default null ordering is NULLS LAST, regardless of the ordering direction")
SELECT x FROM (VALUES 3, NULL, 1) AS t (x) ORDER BY x
