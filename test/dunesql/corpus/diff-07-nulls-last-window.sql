-- NULLs last inside window ORDER BY as well: the NULL amount ranks last in a descending rank.
-- rows: 3
-- columns: x integer, r bigint
-- result: [[3, 1], [1, 2], [null, 3]]
SELECT x, rank() OVER (ORDER BY x DESC) AS r FROM (VALUES 3, NULL, 1) AS t (x) ORDER BY r
