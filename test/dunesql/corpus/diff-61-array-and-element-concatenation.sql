-- `array || element` and `element || array` append and prepend in Trino; DuckDB's || joins two
-- lists only ("Cannot concatenate types INTEGER[] and INTEGER").
-- see: https://trino.io/docs/current/functions/array.html#concatenation-operator
-- rows: 1
-- columns: appended array(integer), prepended array(integer), joined array(integer), labels array(varchar)
-- result: [[[1, 2, 3], [0, 1], [1, 2, 3], ["x", "y"]]]
SELECT array[1, 2] || 3 AS appended,
  0 || array[1] AS prepended,
  array[1] || array[2, 3] AS joined,
  array['x'] || 'y' AS labels
