-- AT TIME ZONE of a timestamp without zone (as the sample tables store block_time): Trino reads it
-- in the session's zone (UTC) and gives the wall-clock time in the named zone. DuckDB alone reads
-- it as wall-clock time in the named zone (New York's noon would become 17:00).
-- see: https://trino.io/docs/current/functions/datetime.html#time-zone-conversion
-- rows: 1
-- columns: ny varchar, summer_hour bigint, summer_day date, tokyo_offset bigint
-- result: [["2024-01-01 07:00", 20, "2024-06-30", 9]]
SELECT format_datetime(timestamp '2024-01-01 12:00:00' AT TIME ZONE 'America/New_York', 'yyyy-MM-dd HH:mm') AS ny,
  hour(at_timezone(timestamp '2024-07-01 00:00:00', 'America/New_York')) AS summer_hour,
  cast(timestamp '2024-07-01 00:00:00' AT TIME ZONE 'America/New_York' AS date) AS summer_day,
  (SELECT DISTINCT (hour(block_time AT TIME ZONE 'Asia/Tokyo') - hour(block_time) + 24) % 24
   FROM ethereum.transactions) AS tokyo_offset
