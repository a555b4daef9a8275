-- Division and remainder keep their types and answers where nothing divides by zero: integers
-- divide as integers, a NULL dividend or divisor gives NULL (before any zero check), and try()
-- turns a division by zero into NULL row by row.
-- rows: 3
-- columns: x integer, q integer, r integer, nothing integer, safe integer
-- result: [[10, 5, 0, null, 5], [9, 2, 1, null, 2], [5, null, null, null, null]]
SELECT x, if(y = 0, NULL, x / y) AS q, if(y = 0, NULL, x % y) AS r, CAST(NULL AS integer) / y AS nothing,
  try(x / y) AS safe
FROM (VALUES (10, 2), (9, 4), (5, 0)) AS t(x, y)
ORDER BY x DESC
