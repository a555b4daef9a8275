-- Casting a double to an integer rounds half away from zero (Trino MathFunctions.round), not to even.
-- rows: 1
-- columns: a integer, b integer, c bigint, d integer
-- result: [[3, -3, 4, 42]]
SELECT cast(2.5e0 AS integer) AS a, cast(-2.5e0 AS integer) AS b, cast(3.5e0 AS bigint) AS c, cast('42' AS integer) AS d
