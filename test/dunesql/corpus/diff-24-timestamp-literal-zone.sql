-- A timestamp literal with a zone is a timestamp with time zone; AT TIME ZONE converts the wall clock.
-- rows: 1
-- columns: utc timestamp(3) with time zone, new_york_hour bigint
-- result: [["2024-01-01 15:00:00.000 UTC", 10]]
-- see: https://trino.io/docs/current/language/types.html#timestamp-with-time-zone
SELECT timestamp '2024-01-01 15:00:00 UTC' AS utc,
  hour(timestamp '2024-01-01 15:00:00 UTC' AT TIME ZONE 'America/New_York') AS new_york_hour
