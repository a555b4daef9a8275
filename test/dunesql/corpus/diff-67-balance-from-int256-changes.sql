-- A balance as the sum of signed changes, the uint256 amounts cast to int256 and negated for what
-- was sent: exact, an int256 (err-20 is the same written with minus a uint256).
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- rows: 1
-- columns: balance int256, in_units double
-- result: [["1000000000000000002", 1.000000000000000002]]
SELECT sum(delta) AS balance, sum(delta) / 1e18 AS in_units
FROM (
  SELECT cast(amount AS int256) AS delta FROM (VALUES cast('3000000000000000007' AS uint256)) AS received(amount)
  UNION ALL
  SELECT -cast(amount AS int256) FROM (VALUES cast('2000000000000000005' AS uint256)) AS sent(amount)
) AS changes
