-- A negative number literal computed with a uint256 fails in DuneSQL as a negative integer column
-- does (err-18). Locally DuckDB typed the product a double and answered -20.0.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- error: -2 .*out of range for the destination type uint256
SELECT amount * -2 AS doubled_back
FROM (VALUES cast(10 AS uint256)) AS t(amount)
