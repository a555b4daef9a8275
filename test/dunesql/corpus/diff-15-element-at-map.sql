-- element_at on a map returns the value (not a one-element list); a missing key is NULL.
-- rows: 1
-- columns: hit integer, miss integer
-- result: [[5, null]]
-- see: https://trino.io/docs/current/functions/map.html#element_at
SELECT element_at(map(ARRAY['k'], ARRAY[5]), 'k') AS hit, element_at(map(ARRAY['k'], ARRAY[5]), 'other') AS miss
