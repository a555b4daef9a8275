-- Trino moves a date by whole days or months only: adding hours, minutes or seconds fails.
-- DuckDB answered a timestamp (or, cast back, the same date).
-- see: https://trino.io/docs/current/functions/datetime.html#date-and-time-operators
-- error: Cannot add hour, minutes or seconds to a date
SELECT date '2024-01-01' + interval '2' hour AS moved
