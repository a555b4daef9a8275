-- map_union(map), Trino's aggregate, was missing locally: the union of the group's maps, NULL
-- maps skipped, NULL over no map. (A key in several maps takes the value of any one of them; the
-- keys below are in one map each.)
-- see: https://trino.io/docs/current/functions/aggregate.html#map_union
-- rows: 2
-- columns: g varchar, merged map(varchar, integer), filtered map(varchar, integer)
-- result: [["a", {"x": 1, "y": 2, "z": 3}, {"z": 3}], ["b", null, null]]
SELECT g,
  map_union(m) AS merged,
  map_union(m) FILTER (WHERE k = 'z') AS filtered
FROM (VALUES
  ('a', 'x', map(array['x', 'y'], array[1, 2])),
  ('a', 'z', map(array['z'], array[3])),
  ('a', 'w', NULL),
  ('b', 'x', NULL)
) AS t(g, k, m)
GROUP BY g
ORDER BY g
