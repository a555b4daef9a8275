-- A base table's uint256 column (the wei a transaction sends) divides as an integer by an integer
-- and computes as a double with a decimal literal, as on Dune. The translator types base tables as
-- Athena holds them (decimal(38,0)), which must not make these rounded decimal divisions: every
-- quotient truncates, also for the remainders a rounding division would round up.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- rows: 1
-- columns: truncates boolean, rounding_would_differ boolean, share_type varchar
-- result: [[true, true, "double"]]
SELECT bool_and(value / 1000000000 * 1000000000 <= value) AS truncates,
  count_if(value % 1000000000 >= 500000000) > 0 AS rounding_would_differ,
  typeof(max(value * 100.0 / 1e18)) AS share_type
FROM ethereum.transactions
WHERE value > 0
