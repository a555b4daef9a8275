-- The same for a derived table: named columns keep their names.
-- rows: 1
-- columns: chains integer, _col1 integer
-- result: [[1, 2]]
SELECT * FROM (SELECT 1 AS chains, 1 + 1) AS s
