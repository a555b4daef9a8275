-- concat() with a NULL argument is NULL (DuckDB's own concat would skip it).
-- rows: 1
-- columns: with_null varchar, pipes varchar, fine varchar
-- result: [[null, null, "ab"]]
-- see: https://trino.io/docs/current/functions/string.html#concat
SELECT concat(a, n) AS with_null, a || n AS pipes, concat(a, b) AS fine
FROM (VALUES ('a', 'b', CAST(NULL AS varchar))) AS t (a, b, n)
