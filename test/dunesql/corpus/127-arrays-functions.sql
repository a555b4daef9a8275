-- Array functions: cardinality, contains, array_position, slice, array_distinct, array_sort, array_join, array_max.
-- rows: 1
-- columns: n bigint, has boolean, pos bigint, sliced array(integer), distinct_sorted array(integer), joined varchar, biggest integer
-- result: [[5, true, 2, [3, 1], [1, 2, 3], "1,3,1", 3]]
SELECT cardinality(ARRAY[1, 3, 1, 2, 2]) AS n,
  contains(ARRAY[1, 3], 3) AS has,
  array_position(ARRAY[1, 3, 1], 3) AS pos,
  slice(ARRAY[1, 3, 1], 2, 2) AS sliced,
  array_sort(array_distinct(ARRAY[3, 1, 2, 3])) AS distinct_sorted,
  array_join(ARRAY[1, 3, 1], ',') AS joined,
  array_max(ARRAY[1, 3, 2]) AS biggest
