-- Minus a uint256 (a balance change written `-value`) has no uint256 answer. The local engine's
-- 128-bit unsigned integers wrapped around silently: -1 became 2^128 - 1, and a sum of balance
-- changes counted it as a huge amount (or failed as "exceeding 128 bits"). It fails now, saying how
-- to write it: -cast(value AS int256) (next to it in the corpus: diff-67).
-- see: https://docs.dune.com/query-engine/datatypes
-- error: Cannot negate the uint256 value 5: .*cast it to int256 first
SELECT sum(delta) AS balance
FROM (
  SELECT amount AS delta FROM (VALUES cast(7 AS uint256)) AS received(amount)
  UNION ALL
  SELECT -amount FROM (VALUES cast(5 AS uint256)) AS sent(amount)
) AS changes
