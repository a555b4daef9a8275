-- A date sequence steps by whole days (or months): an hourly step fails as in Trino, where DuckDB
-- repeated each date.
-- error: sequence step must be a day interval if start and end values are dates
SELECT sequence(date '2024-01-01', date '2024-01-03', interval '12' hour) AS s
