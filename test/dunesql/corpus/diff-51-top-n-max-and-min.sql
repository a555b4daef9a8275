-- max(x, n) and min(x, n) are aggregates: the n largest (smallest) values as an array, largest
-- (smallest) first, NULLs skipped. Polyglot wrote them as GREATEST(x, n) and LEAST(x, n), scalar
-- functions, which failed the query ("x must appear in the GROUP BY clause").
-- see: https://trino.io/docs/current/functions/aggregate.html#max
-- rows: 1
-- columns: top array(integer), bottom array(integer), largest integer, top_filtered array(integer)
-- result: [[[7, 3], [1, 3], 7, [3, 1]]]
SELECT max(x, 2) AS top,
  min(x, 2) AS bottom,
  max(x) AS largest,
  max(x, 2) FILTER (WHERE x < 7) AS top_filtered
FROM (VALUES 1, 3, 7, NULL) AS t(x)
