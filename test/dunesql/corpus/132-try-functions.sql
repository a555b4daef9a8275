-- try / try_cast turn failures into NULL (division by zero, bad casts).
-- rows: 1
-- columns: div integer, bad_cast integer, good_cast integer, bad_date date
-- result: [[null, null, 42, null]]
-- see: https://trino.io/docs/current/functions/conditional.html#try
SELECT try(1 / 0) AS div, try_cast('x' AS integer) AS bad_cast, try_cast('42' AS integer) AS good_cast,
  try_cast('2024-13-45' AS date) AS bad_date
