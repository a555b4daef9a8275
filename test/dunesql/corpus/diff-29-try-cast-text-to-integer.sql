-- try_cast of text that is not an integer is NULL; a sign and leading zeros are integers.
-- rows: 1
-- columns: a integer, b bigint, c smallint, d integer, e bigint
-- result: [[null, -7, 3, null, 7]]
SELECT try_cast('12.5' AS integer) AS a, try_cast('-7' AS bigint) AS b, try_cast('+3' AS smallint) AS c,
  try_cast(' 1' AS integer) AS d, try_cast('007' AS bigint) AS e
