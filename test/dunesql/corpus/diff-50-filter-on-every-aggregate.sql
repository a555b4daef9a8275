-- FILTER (WHERE …) on an aggregate counts only the rows that pass. The local translation dropped
-- the clause of sum (rewritten into a macro) and polyglot's DuckDB output dropped it for
-- arbitrary, approx_distinct, approx_percentile, bool_and, histogram, map_agg, var_pop and
-- bitwise_or_agg, so `sum(amount_usd) FILTER (WHERE blockchain = 'ethereum')` summed every chain.
-- Over no passing rows, sum is NULL and count is 0.
-- see: https://trino.io/docs/current/functions/aggregate.html#filtering-during-aggregation
-- rows: 1
-- columns: s bigint, d bigint, a integer, b boolean, h map(integer, bigint), m map(integer, integer), p bigint, o bigint, v double, c bigint, none bigint, share double
-- result: [[8, 2, 3, true, {"2": 1, "3": 2}, {"2": 20, "3": 30}, 3, 3, 0.22222222222222224, 0, null, 0.8888888888888888]]
SELECT sum(x) FILTER (WHERE x > 1) AS s,
  approx_distinct(x) FILTER (WHERE x > 1) AS d,
  arbitrary(x) FILTER (WHERE x > 2) AS a,
  bool_and(x > 1) FILTER (WHERE x > 1) AS b,
  histogram(x) FILTER (WHERE x > 1) AS h,
  map_agg(x, x * 10) FILTER (WHERE x > 1) AS m,
  approx_percentile(x, 0.5) FILTER (WHERE x > 1) AS p,
  bitwise_or_agg(x) FILTER (WHERE x > 1) AS o,
  var_pop(x) FILTER (WHERE x > 1) AS v,
  count(x) FILTER (WHERE x > 5) AS c,
  sum(x) FILTER (WHERE x > 5) AS none,
  sum(x) FILTER (WHERE x > 1) * 1e0 / sum(x) AS share
FROM (VALUES 1, 2, 3, 3) AS t(x)
