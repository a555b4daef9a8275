-- A uint256 with an integer column (the wei sent plus gas_price * gas_used, a raw amount over a
-- count) is exact in DuneSQL: the integer converts to uint256 and so is the result; an int256 with
-- one stays an int256. DuckDB found no common integer type for its unsigned 128-bit integer and a
-- signed one and computed in double precision: the last digits of a wei amount were lost.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- rows: 1
-- columns: total uint256, remaining uint256, per_gas uint256, remainder uint256, scaled uint256, signed int256
-- result: [["1000000000000000021", "999999999999999991", "100000000000000000", "1", "10000000000000000010", -50]]
SELECT value + gas_price * gas_used AS total,
  value - gas_used AS remaining,
  value / gas_used AS per_gas,
  value % gas_used AS remainder,
  gas_used * value AS scaled,
  delta * gas_used AS signed
FROM (
  VALUES (cast('1000000000000000001' AS uint256), cast(2 AS bigint), cast(10 AS integer), cast(-5 AS int256))
) AS t(value, gas_price, gas_used, delta)
