-- try() of a failing expression is NULL: division by zero, an invalid cast (not Infinity, not an error).
-- rows: 1
-- columns: div integer, cast_fail integer, fine integer
-- result: [[null, null, 2]]
-- see: https://trino.io/docs/current/functions/conditional.html#try
SELECT try(1 / 0) AS div, try(cast('abc' AS integer)) AS cast_fail, try(4 / 2) AS fine
