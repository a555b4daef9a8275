-- Text casts to an integer type only when it is an integer (Java's Long.parseLong: a sign and
-- digits): Trino fails cast('12.5' AS integer), where DuckDB would round it to 13.
-- see: https://trino.io/docs/current/functions/conversion.html
-- error: Cannot cast '12\.5' to INT
SELECT cast('42' AS integer) AS fine, cast('12.5' AS integer) AS fraction
