-- A map built from `(key, value)` tuples is a map: a missing key fails with Trino's message.
-- error: Key not present in map: y
SELECT map_from_entries(array[('x', 1)])['y']
