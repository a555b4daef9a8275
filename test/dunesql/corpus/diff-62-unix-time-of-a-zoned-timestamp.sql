-- to_unixtime of a timestamp moved to a zone is the same instant's seconds: AT TIME ZONE changes
-- how the instant is shown, not the instant. The local engine holds the wall-clock time in the
-- zone and read it as UTC (Tokyo's midnight of 1970-01-01 UTC was 32400, not 0).
-- see: https://trino.io/docs/current/functions/datetime.html#to_unixtime
-- rows: 1
-- columns: tokyo double, india double, new_york_day double
-- result: [[0.0, 0.0, 18000.0]]
SELECT to_unixtime(from_unixtime(0) AT TIME ZONE 'Asia/Tokyo') AS tokyo,
  to_unixtime(from_unixtime(0) AT TIME ZONE '+05:30') AS india,
  to_unixtime(date_trunc('day', from_unixtime(100000) AT TIME ZONE 'America/New_York')) AS new_york_day
