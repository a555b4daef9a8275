-- An aggregate or window value through a function the local engine writes as a macro that picks
-- its overload by type: `max(block_time) - interval '1' day` (the start of the last day of data),
-- `to_iso8601(max(block_time))`, `date_add('day', 1, max(block_date))`. DuckDB expands a macro
-- before it types aggregates, so it took the date overload for the timestamp (the time of day
-- lost without an error, or "Cannot add hour, minutes or seconds to a date"), or failed as
-- ambiguous between overloads.
-- see: https://trino.io/docs/current/functions/datetime.html
-- rows: 1
-- columns: day_before timestamp(3), later timestamp(3), last_time varchar, next_day date, first_pair varchar
-- result: [["2024-02-29 12:34:56.789 UTC", "2024-03-01 14:04:56.789 UTC", "2024-03-01T12:34:56.789", "2024-03-02", "WET"]]
SELECT max(block_time) - interval '1' day AS day_before,
  max(block_time) + interval '90' minute AS later,
  to_iso8601(max(block_time)) AS last_time,
  date_add('day', 1, max(block_date)) AS next_day,
  substr(min(pair), 1, 3) AS first_pair
FROM (
  VALUES (timestamp '2024-03-01 12:34:56.789', date '2024-03-01', 'WETH-USDC'),
    (timestamp '2024-02-01 00:00:00', date '2024-02-01', 'WETH-USDT')
) AS t(block_time, block_date, pair)
