-- format_number as Trino's FormatNumberFunction: truncated to a bigint, divided by 1,000 while at
-- least 1,000 in size (K, M, B, T, Q), up to two decimals below 10 (negatives included), one below
-- 100, rounded half up; beyond a bigint it saturates. with_timezone reads a wall-clock time in a
-- zone (shown with that zone); current_timezone is the session's.
-- see: https://trino.io/docs/current/functions/conversion.html
-- rows: 1
-- columns: k varchar, m varchar, m2 varchar, neg varchar, up varchar, small varchar, huge varchar, ny timestamp(3) with time zone, tz varchar
-- result: [["123K", "1M", "1.23M", "-1.5K", "100K", "12", "9223Q", "2024-01-01 12:00:00.000 America/New_York", "UTC"]]
SELECT format_number(123456) AS k,
  format_number(1000000) AS m,
  format_number(1234567) AS m2,
  format_number(-1500) AS neg,
  format_number(99999) AS up,
  format_number(12.7) AS small,
  format_number(1e30) AS huge,
  with_timezone(timestamp '2024-01-01 12:00:00', 'America/New_York') AS ny,
  current_timezone() AS tz
