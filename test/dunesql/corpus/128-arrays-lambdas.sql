-- Lambdas: transform, filter, reduce, any_match over arrays.
-- rows: 1
-- columns: doubled array(integer), big array(integer), total integer, any_big boolean
-- result: [[[2, 4, 6], [3], 6, true]]
SELECT transform(ARRAY[1, 2, 3], x -> x * 2) AS doubled,
  filter(ARRAY[1, 2, 3], x -> x > 2) AS big,
  reduce(ARRAY[1, 2, 3], 0, (s, x) -> s + x, s -> s) AS total,
  any_match(ARRAY[1, 2, 3], x -> x > 2) AS any_big
