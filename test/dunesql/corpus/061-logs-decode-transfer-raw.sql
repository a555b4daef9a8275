-- Decode ERC-20 Transfer logs by hand: addresses from topics, amount from data (varbinary_to_uint256).
-- rows: 50
-- columns: token varbinary, sender varbinary, receiver varbinary, amount uint256
SELECT
  contract_address AS token,
  bytearray_substring(topic1, 13, 20) AS sender,
  bytearray_substring(topic2, 13, 20) AS receiver,
  bytearray_to_uint256(bytearray_substring(data, 1, 32)) AS amount
FROM ethereum.logs
WHERE topic0 = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef
ORDER BY block_number DESC, index
LIMIT 50
