-- Arrays are indexed from 1; element_at with a negative index counts from the end and is NULL out of range.
-- rows: 1
-- columns: first integer, via_element_at integer, last integer, out_of_range integer
-- result: [[10, 20, 30, null]]
-- see: https://trino.io/docs/current/functions/array.html#element_at
SELECT ARRAY[10, 20, 30][1] AS first, element_at(ARRAY[10, 20, 30], 2) AS via_element_at,
  element_at(ARRAY[10, 20, 30], -1) AS last, element_at(ARRAY[10, 20, 30], 5) AS out_of_range
