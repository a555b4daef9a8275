-- approx_percentile(x, w, p), the weighted form (a weight counts its value w times), failed
-- locally ("Macro approx_percentile() does not support the supplied arguments"). Typed as the
-- unweighted form: a bigint for integers, a double otherwise, an array for several percentages.
-- see: https://trino.io/docs/current/functions/aggregate.html#approx_percentile
-- rows: 2
-- columns: g varchar, median bigint, spread array(bigint), price double, small bigint
-- result: [["a", 3, [1, 3, 3], 3.5, 1], ["b", 5, [5, 5, 5], 5.5, null]]
SELECT g,
  approx_percentile(x, w, 0.5) AS median,
  approx_percentile(x, w, array[0.0, 0.5, 1.0]) AS spread,
  approx_percentile(price, w, 0.9) AS price,
  approx_percentile(x, w, 0.5) FILTER (WHERE x < 3) AS small
FROM (VALUES
  ('a', 1, 1.5, 1),
  ('a', 2, 2.5, 1),
  ('a', 3, 3.5, 10),
  ('a', NULL, 0.5, 5),
  ('b', 5, 5.5, 2)
) AS t(g, x, price, w)
GROUP BY g
ORDER BY g
