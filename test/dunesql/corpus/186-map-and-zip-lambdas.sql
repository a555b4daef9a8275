-- Map and zip lambdas (transform_values, transform_keys, map_filter, zip_with), a parameter's fields, a lambda inside that rebinds a name, and the array set functions' order and NULLs.
-- rows: 1
-- columns: doubled integer, renamed integer, kept bigint, sums array(integer), nested array(integer), distinct array(integer), union array(integer), except array(integer), overlap boolean, fields array(integer)
-- result: [[20, 1, 1, [4, 6, null], [3], [3, 1, null, 2], [3, 1, 2], [3, 2], null, [3]]]
SELECT transform_values(map(ARRAY['a'], ARRAY[10]), (k, v) -> v * 2)['a'] AS doubled,
  transform_keys(map(ARRAY['a'], ARRAY[1]), (k, v) -> upper(k))['A'] AS renamed,
  cardinality(map_filter(map(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> v > 1)) AS kept,
  zip_with(ARRAY[1, 2], ARRAY[3, 4, 5], (x, y) -> x + y) AS sums,
  transform_values(map(ARRAY[1], ARRAY[2]), (k, v) -> transform(ARRAY[v], k -> k + 1))[1] AS nested,
  array_distinct(ARRAY[3, 1, 3, NULL, 2, NULL]) AS "distinct",
  array_union(ARRAY[3, 1, 3], ARRAY[1, 2]) AS "union",
  array_except(ARRAY[3, 1, 3, 2], ARRAY[1]) AS "except",
  arrays_overlap(ARRAY[1, NULL], ARRAY[3]) AS overlap,
  zip_with(ARRAY[CAST(ROW(1) AS ROW(n integer))],
    ARRAY[transform_values(map(ARRAY['a'], ARRAY[CAST(ROW(1) AS ROW(n integer))]), (k, v) -> v.n + 1)['a']],
    (x, y) -> x.n + y) AS fields
