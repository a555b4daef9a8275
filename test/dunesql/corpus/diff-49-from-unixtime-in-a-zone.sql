-- from_unixtime(seconds, zone) is that instant shown in the zone, as Trino shows a timestamp with
-- time zone (its hour is the zone's, and a cast to varchar names the zone); the zone argument was
-- dropped, so it read as UTC.
-- see: https://trino.io/docs/current/functions/datetime.html#from_unixtime
-- rows: 1
-- columns: ny timestamp(3) with time zone, tokyo_hour bigint, tokyo_text varchar, utc timestamp(3) with time zone
-- result: [["2023-11-14 17:13:20.000 America/New_York", 7, "2023-11-15 07:13:20.000 Asia/Tokyo", "2023-11-14 22:13:20.000 UTC"]]
SELECT from_unixtime(1700000000, 'America/New_York') AS ny,
  hour(from_unixtime(1700000000, 'Asia/Tokyo')) AS tokyo_hour,
  cast(from_unixtime(1700000000, 'Asia/Tokyo') AS varchar) AS tokyo_text,
  from_unixtime(1700000000) AS utc
