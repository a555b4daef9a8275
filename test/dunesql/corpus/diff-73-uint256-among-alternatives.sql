-- A uint256 and an integer column as the alternatives of coalesce, CASE, if, greatest and least
-- (a transfer's value, or the gas used when there is none) give a uint256 in DuneSQL: the integer
-- converts, as in arithmetic. DuckDB found no common integer type and typed them int256, which
-- the API writes as a JSON number where Dune writes a string; with an int256 they stay int256.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- rows: 1
-- columns: fallback uint256, chosen uint256, either uint256, largest uint256, smallest uint256, signed int256
-- result: [["21000", "21000", "21000", "1000000000000000000", "21000", 21000]]
SELECT coalesce(missing, gas_used) AS fallback,
  CASE WHEN value > 10 THEN gas_used ELSE value END AS chosen,
  if(value > 10, gas_used, value) AS either,
  greatest(value, gas_used) AS largest,
  least(value, gas_used) AS smallest,
  coalesce(delta, gas_used) AS signed
FROM (
  VALUES (cast(NULL AS uint256), cast('1000000000000000000' AS uint256), cast(21000 AS bigint), cast(NULL AS int256))
) AS t(missing, value, gas_used, delta)
