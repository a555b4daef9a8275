-- A timestamp moved to a zone is shown with that zone, as Trino shows a timestamp with time zone
-- (also truncated, or shifted by an interval): the zone's wall-clock time and the zone's name, where
-- DuckDB's zone-less wall-clock time was labelled UTC. A year-to-month interval is typed so (DuckDB
-- has one interval type). Cast to varchar, a zone-moved timestamp is written with its zone too.
-- see: https://trino.io/docs/current/functions/datetime.html#time-zone-conversion
-- rows: 1
-- columns: ny timestamp(3) with time zone, tokyo_day timestamp(3) with time zone, later timestamp(3) with time zone, months interval year to month, back interval year to month, days interval day to second, ny_text varchar
-- result: [["2024-01-01 07:00:00.000 America/New_York", "2024-01-02 00:00:00.000 Asia/Tokyo", "2024-01-01 08:00:00.000 America/New_York", "1-2", "-2-0", "3 00:00:00.000", "2024-01-01 07:00:00.000 America/New_York"]]
SELECT timestamp '2024-01-01 12:00:00.000' AT TIME ZONE 'America/New_York' AS ny,
  date_trunc('day', at_timezone(timestamp '2024-01-01 20:00:00.000', 'Asia/Tokyo')) AS tokyo_day,
  (timestamp '2024-01-01 12:00:00.000' AT TIME ZONE 'America/New_York') + interval '1' hour AS later,
  interval '14' month AS months,
  -(interval '2' year) AS back,
  interval '3' day AS days,
  cast(timestamp '2024-01-01 12:00:00.000' AT TIME ZONE 'America/New_York' AS varchar) AS ny_text
