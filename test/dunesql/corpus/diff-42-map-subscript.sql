-- A map subscript of a key the map holds is its value (NULL when the value is NULL, or for a NULL
-- map or key); a missing key fails as in Trino (err-09), where DuckDB answered NULL. element_at
-- stays NULL for a missing key, on both. A map from `('k', v)` tuples is a map too.
-- see: https://trino.io/docs/current/functions/map.html#subscript-operator
-- rows: 1
-- columns: found integer, null_value integer, no_key integer, no_map bigint, missing integer, from_entries integer
-- result: [[2, null, null, null, null, 1]]
SELECT m['b'] AS found,
  m['c'] AS null_value,
  m[cast(null AS varchar)] AS no_key,
  cast(null AS map(varchar, bigint))['a'] AS no_map,
  element_at(m, 'z') AS missing,
  map_from_entries(array[('x', 1)])['x'] AS from_entries
FROM (SELECT map(array['a', 'b', 'c'], array[1, 2, null]) AS m)
