-- A negative integer computed with a uint256 fails in DuneSQL: it converts to uint256, which
-- cannot hold it. Locally DuckDB computed the sum in double precision and answered 9.0.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- error: -1 .*out of range for the destination type uint256
SELECT cast(10 AS uint256) + n AS total
FROM (VALUES cast(-1 AS bigint)) AS t(n)
