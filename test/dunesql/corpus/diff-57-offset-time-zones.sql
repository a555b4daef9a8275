-- A zone written as an offset (`+05:30`, `-08:00`) failed locally ("Unknown TimeZone '+05:30'"):
-- DuckDB knows named zones only. AT TIME ZONE gives the wall-clock time at that offset, as Trino.
-- see: https://trino.io/docs/current/language/types.html#timestamp-with-time-zone
-- rows: 1
-- columns: india timestamp(3) with time zone, pacific timestamp(3) with time zone, hour_there bigint, day_there timestamp(3) with time zone, seconds double
-- result: [["1970-01-01 05:30:00.000 +05:30", "1969-12-31 16:00:00.000 -08:00", 5, "1970-01-02 00:00:00.000 +05:30", -3600]]
SELECT from_unixtime(0) AT TIME ZONE '+05:30' AS india,
  at_timezone(from_unixtime(0), '-08:00') AS pacific,
  hour(from_unixtime(0) AT TIME ZONE '+05:30') AS hour_there,
  date_trunc('day', from_unixtime(86000) AT TIME ZONE '+05:30') AS day_there,
  to_unixtime(with_timezone(timestamp '1970-01-01 00:00:00', '+01:00')) AS seconds
