-- A timestamp moved to a zone compares as the instant it is: Trino reads an unzoned timestamp in
-- the session's zone (UTC on Dune) and compares instants, so 12:30 UTC moved to New York (07:30
-- there) is after 12:00. DuckDB held the moved value as its wall-clock time and compared that,
-- off by the zone's offset (every answer below was false), also through a CTE's column, in WHERE
-- and in a join's condition. from_unixtime(to_unixtime(x), zone) failed.
-- see: https://trino.io/docs/current/functions/datetime.html#time-zone-conversion
-- rows: 1
-- columns: ny_after_noon_utc boolean, tokyo_before_one_utc boolean, same_instant boolean, offset_between boolean, round_trip boolean, through_cte boolean, joined bigint
-- result: [[true, true, true, true, true, true, 1]]
WITH moved AS (
  SELECT ts, ts AT TIME ZONE 'America/New_York' AS ny FROM (VALUES timestamp '2024-03-01 12:30:00 UTC') AS t(ts)
)
SELECT ts AT TIME ZONE 'America/New_York' >= timestamp '2024-03-01 12:00:00' AS ny_after_noon_utc,
  ts AT TIME ZONE 'Asia/Tokyo' < timestamp '2024-03-01 13:00:00' AS tokyo_before_one_utc,
  ts AT TIME ZONE 'America/New_York' = ts AS same_instant,
  ts AT TIME ZONE '+05:30' BETWEEN timestamp '2024-03-01 12:00:00' AND timestamp '2024-03-01 13:00:00' AS offset_between,
  from_unixtime(to_unixtime(ts), 'Asia/Tokyo') = ts AS round_trip,
  ny > timestamp '2024-03-01 12:00:00' AS through_cte,
  (SELECT count(*) FROM moved AS m JOIN (VALUES timestamp '2024-03-01 12:30:00') AS u(x) ON m.ny = u.x) AS joined
FROM moved
WHERE ny BETWEEN timestamp '2024-03-01 12:00:00' AND timestamp '2024-03-01 13:00:00'
