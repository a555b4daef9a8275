-- concat() with a NULL argument is NULL (DuckDB's own concat would skip it).
-- rows: 1
-- columns: with_null varchar, pipes varchar, fine varchar
-- result: [[null, null, "ab"]]
SELECT concat('a', NULL) AS with_null, 'a' || CAST(NULL AS varchar) AS pipes, concat('a', 'b') AS fine
