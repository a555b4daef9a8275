-- Decode Uniswap V3 Swap logs: signed amounts from data words (varbinary_to_int256).
-- rows: 20
-- columns: pool varbinary, amount0 int256, amount1 int256
SELECT contract_address AS pool,
  varbinary_to_int256(varbinary_substring(data, 1, 32)) AS amount0,
  varbinary_to_int256(varbinary_substring(data, 33, 32)) AS amount1
FROM ethereum.logs
WHERE topic0 = 0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67
ORDER BY block_number DESC, index
LIMIT 20
