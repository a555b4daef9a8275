-- Maps: map(), element_at (missing key is NULL), subscript, map_keys, cardinality.
-- rows: 1
-- columns: hit integer, miss integer, sub integer, keys array(varchar), size bigint
-- result: [[1, null, 2, ["a", "b"], 2]]
-- see: https://trino.io/docs/current/functions/map.html#element_at
SELECT element_at(map(ARRAY['a', 'b'], ARRAY[1, 2]), 'a') AS hit,
  element_at(map(ARRAY['a', 'b'], ARRAY[1, 2]), 'z') AS miss,
  map(ARRAY['a', 'b'], ARRAY[1, 2])['b'] AS sub,
  map_keys(map(ARRAY['a', 'b'], ARRAY[1, 2])) AS keys,
  cardinality(map(ARRAY['a', 'b'], ARRAY[1, 2])) AS size
