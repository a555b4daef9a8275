-- parse_duration(text) and to_milliseconds(interval) were missing locally (DuckDB's
-- to_milliseconds takes a number). parse_duration reads a decimal number and a unit (ns, us, ms,
-- s, m, h, d), rounded to the millisecond, as a day-to-second interval.
-- see: https://trino.io/docs/current/functions/datetime.html#parse_duration
-- rows: 1
-- columns: a interval day to second, b interval day to second, c interval day to second, ms bigint, day_ms bigint
-- result: [["0 00:00:00.043", "3 19:26:24.000", "0 00:05:00.000", 3500, 86402000]]
SELECT parse_duration('42.8ms') AS a,
  parse_duration('3.81 d') AS b,
  parse_duration('5m') AS c,
  to_milliseconds(parse_duration('3.5s')) AS ms,
  to_milliseconds(interval '1' day + interval '2' second) AS day_ms
