-- A zero step fails as in Trino (DuckDB answered an empty array).
-- error: step must not be zero
SELECT sequence(1, 5, 0) AS s
