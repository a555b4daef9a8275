-- An int256 computed with a uint256 (a swap's signed amount with a pool's liquidity) is an exact
-- int256 in DuneSQL, which counts int256 as the wider type. DuckDB found no common integer type for
-- its signed and unsigned 128-bit integers and computed in double precision (-3.0E19 for a sum
-- whose last digits matter).
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- rows: 1
-- columns: net int256, scaled int256, unsigned uint256
-- result: [["-29999999999999999993", "-350000000000000000000", "10000000000000000014"]]
SELECT amount + liquidity AS net,
  amount * cast(10 AS uint256) AS scaled,
  liquidity + liquidity AS unsigned
FROM (
  VALUES (cast('-35000000000000000000' AS int256), cast('5000000000000000007' AS uint256))
) AS t(amount, liquidity)
