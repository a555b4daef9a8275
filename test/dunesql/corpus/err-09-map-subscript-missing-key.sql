-- A map subscript of a key the map lacks fails with Trino's message, naming the key (DuckDB
-- answered NULL).
-- error: Key not present in map: z
SELECT m['z'] FROM (SELECT map(array['a', 'b'], array[1, 2]) AS m)
