-- HyperLogLog sketches (approx_set, merge, cardinality, empty_approx_set), the usual way to count
-- distinct users over days without re-reading the days: one sketch per day, merged over a range.
-- DuckDB has none of these functions. Locally a sketch is exact (as approx_distinct is), so
-- small counts are what Trino's sketches estimate too; NULLs are skipped, and a sketch of no
-- value is NULL (its cardinality too), while empty_approx_set() counts 0.
-- see: https://trino.io/docs/current/functions/hyperloglog.html
-- rows: 1
-- columns: days bigint, users bigint, summed_daily bigint, heavy bigint, none bigint, empty bigint, tolerance bigint
-- result: [[3, 4, 7, 2, null, 0, 3]]
WITH events (day, user_id, amount) AS (
  VALUES (1, 'alice', 10), (1, 'bob', 200), (1, NULL, 5),
    (2, 'alice', 300), (2, 'carol', 20), (2, 'bob', 7),
    (3, 'dave', 1), (3, 'alice', 2)
),
daily AS (
  SELECT day, approx_set(user_id) AS users, approx_set(user_id) FILTER (WHERE amount > 100) AS heavy_users
  FROM events
  GROUP BY day
)
SELECT count(*) AS days,
  cardinality(merge(users)) AS users,
  sum(cardinality(users)) AS summed_daily,
  cardinality(merge(heavy_users)) AS heavy,
  (SELECT cardinality(approx_set(user_id)) FROM events WHERE amount > 1000) AS none,
  cardinality(empty_approx_set()) AS empty,
  (SELECT cardinality(approx_set(user_id, 0.01)) FROM events WHERE day = 2) AS tolerance
FROM daily
