-- Converting UTC block times to New York time (AT TIME ZONE) and back to a date.
-- rows: 1
-- columns: utc timestamp(3) with time zone, new_york_hour bigint
-- result: [["2024-01-01 15:00:00.000 UTC", 10]]
SELECT timestamp '2024-01-01 15:00:00 UTC' AS utc,
  hour(timestamp '2024-01-01 15:00:00 UTC' AT TIME ZONE 'America/New_York') AS new_york_hour
