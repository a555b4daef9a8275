-- A zone-moved timestamp and a year-to-month interval keep their types through a set operation
-- whose branches agree, and after a `*` in the select list (diff-40 shows them elsewhere). DuckDB
-- answered the zone's wall-clock time labelled UTC, and an interval day to second.
-- see: https://trino.io/docs/current/language/types.html#timestamp-with-time-zone
-- rows: 2
-- columns: ny timestamp(3) with time zone, months interval year to month, later interval year to month
-- result: [["2024-01-01 07:00:00.000 America/New_York", "1-2", "0-2"], ["2024-06-01 08:00:00.000 America/New_York", "1-0", "0-2"]]
SELECT *, interval '2' month AS later
FROM (
  SELECT timestamp '2024-01-01 12:00:00.000' AT TIME ZONE 'America/New_York' AS ny, interval '14' month AS months
  UNION ALL
  SELECT timestamp '2024-06-01 12:00:00.000' AT TIME ZONE 'America/New_York', interval '1' year
)
ORDER BY 1
