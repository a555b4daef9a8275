-- T-digests and quantile digests (tdigest_agg, qdigest_agg, value_at_quantile,
-- values_at_quantiles, merge), the way to keep quantiles of many groups (one digest per day) and
-- combine them later. DuckDB has none of these functions. Locally a digest holds its values, so a
-- T-digest's quantile interpolates between them and a quantile digest's is one of them (a bigint
-- for integers); small inputs like these are what Trino's digests estimate too. NULLs are
-- skipped, and a digest of no value is NULL.
-- see: https://trino.io/docs/current/functions/tdigest.html
-- rows: 1
-- columns: t_median double, q_median bigint, t_ends array(double), q_ends array(bigint), merged_median double, filtered_median double, none bigint
-- result: [[3, 3, [1, 5], [1, 5], 3, 4, null]]
WITH samples (day, fee) AS (
  VALUES (1, 1), (1, 2), (1, NULL), (2, 3), (2, 4), (2, 5)
),
daily AS (
  SELECT day, tdigest_agg(fee) AS fees FROM samples GROUP BY day
)
SELECT (SELECT value_at_quantile(tdigest_agg(fee), 0.5) FROM samples) AS t_median,
  (SELECT value_at_quantile(qdigest_agg(fee), 0.5) FROM samples) AS q_median,
  (SELECT values_at_quantiles(tdigest_agg(fee), array[0.0, 1.0]) FROM samples) AS t_ends,
  (SELECT values_at_quantiles(qdigest_agg(fee), array[0.0, 1.0]) FROM samples) AS q_ends,
  value_at_quantile(merge(fees), 0.5) AS merged_median,
  (SELECT value_at_quantile(tdigest_agg(fee) FILTER (WHERE fee > 2), 0.5) FROM samples) AS filtered_median,
  (SELECT value_at_quantile(qdigest_agg(fee), 0.5) FROM samples WHERE fee > 100) AS none
FROM daily
