-- split_part past the last field is NULL (not an empty string).
-- rows: 1
-- columns: second varchar, beyond varchar
-- result: [["b", null]]
-- see: https://trino.io/docs/current/functions/string.html#split_part
SELECT split_part('a-b', '-', 2) AS second, split_part('a-b', '-', 3) AS beyond
