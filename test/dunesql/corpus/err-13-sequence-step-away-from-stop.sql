-- A step that points away from the stop fails as in Trino (DuckDB answered an empty array).
-- error: sequence stop value should be greater than or equal to start value if step is greater than zero otherwise stop should be less than or equal to start
SELECT sequence(1, 5, -1) AS s
