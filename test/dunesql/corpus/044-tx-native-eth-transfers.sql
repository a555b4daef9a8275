-- Largest native ETH transfers (empty calldata, value > 0), uint256 value scaled by 1e18.
-- rows: 10
-- columns: hash varbinary, sender varbinary, recipient varbinary, eth double
SELECT hash, "from" AS sender, "to" AS recipient, cast(value AS double) / 1e18 AS eth
FROM ethereum.transactions
WHERE value > 0 AND length(data) = 0
ORDER BY value DESC
LIMIT 10
