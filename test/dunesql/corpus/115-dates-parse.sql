-- Parsing timestamps: date_parse, parse_datetime, from_iso8601_timestamp, cast of a date string.
-- parse_datetime is a timestamp with time zone, as in Trino (it was typed timestamp(3) locally).
-- see: https://trino.io/docs/current/functions/datetime.html#parse_datetime
-- rows: 1
-- columns: parsed timestamp(3), joda timestamp(3) with time zone, iso timestamp(3) with time zone, d date
SELECT date_parse('2024-03-05 14:07', '%Y-%m-%d %H:%i') AS parsed,
  parse_datetime('2024-03-05', 'yyyy-MM-dd') AS joda,
  from_iso8601_timestamp('2024-03-05T14:07:09Z') AS iso,
  cast('2024-03-05' AS date) AS d
