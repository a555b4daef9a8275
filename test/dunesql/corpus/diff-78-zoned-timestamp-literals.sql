-- A timestamp literal written with a zone, with_timezone and from_unixtime(x, hours, minutes) are
-- timestamps with time zone: shown with the zone, their hour and date the zone's. The literal was
-- read as UTC's time (hour 17 for New York's noon) and an offset failed; with_timezone gave the
-- instant in UTC; the hours and minutes were dropped.
-- see: https://trino.io/docs/current/functions/datetime.html#with_timezone
-- rows: 1
-- columns: ny timestamp(3) with time zone, ny_hour bigint, tokyo_day date, offset timestamp(3) with time zone, moved timestamp(3) with time zone, two_hours timestamp(3) with time zone, after_new_year boolean
-- result: [["2024-01-01 12:00:00.000 America/New_York", 12, "2024-01-01", "2024-01-01 00:00:00.000 +05:30", "2024-01-01 22:00:00.000 America/New_York", "2023-11-15 00:13:20.000 +02:00", true]]
SELECT timestamp '2024-01-01 12:00:00 America/New_York' AS ny,
  hour(timestamp '2024-01-01 12:00:00 America/New_York') AS ny_hour,
  cast(timestamp '2024-01-01 01:00:00 Asia/Tokyo' AS date) AS tokyo_day,
  timestamp '2024-01-01 00:00:00 +05:30' AS "offset",
  with_timezone(timestamp '2024-01-01 22:00:00', 'America/New_York') AS moved,
  from_unixtime(1700000000, 2, 0) AS two_hours,
  with_timezone(timestamp '2024-01-01 22:00:00', 'America/New_York') > timestamp '2024-01-02 02:59:59 UTC' AS after_new_year
