-- Decode transfer(address,uint256) calldata: recipient and amount from fixed offsets.
-- rows: 20
-- columns: token varbinary, recipient varbinary, amount uint256
SELECT "to" AS token,
  varbinary_substring(data, 17, 20) AS recipient,
  varbinary_to_uint256(varbinary_substring(data, 37, 32)) AS amount
FROM ethereum.transactions
WHERE varbinary_substring(data, 1, 4) = 0xa9059cbb
ORDER BY block_number DESC, index
LIMIT 20
