-- Calldata starting with the transfer(address,uint256) selector (varbinary_starts_with).
-- rows: 1
-- columns: transfer_calls bigint, other_calls bigint
SELECT count_if(varbinary_starts_with(data, 0xa9059cbb)) AS transfer_calls,
  count_if(NOT varbinary_starts_with(data, 0xa9059cbb)) AS other_calls
FROM ethereum.transactions
WHERE varbinary_length(data) > 0
