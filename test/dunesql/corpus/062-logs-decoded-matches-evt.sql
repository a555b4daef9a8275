-- Hand-decoded Transfer logs agree with erc20_ethereum.evt_Transfer (join on tx hash and log index).
-- rows: 1
-- columns: decoded bigint, matching bigint
WITH raw AS (
  SELECT tx_hash, index, varbinary_substring(topic2, 13, 20) AS receiver, varbinary_to_uint256(varbinary_substring(data, 1, 32)) AS amount
  FROM ethereum.logs
  WHERE topic0 = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef
)
SELECT count(*) AS decoded, count_if(e."to" = r.receiver AND e.value = r.amount) AS matching
FROM raw r
JOIN erc20_ethereum.evt_Transfer e ON e.evt_tx_hash = r.tx_hash AND e.evt_index = r.index
