-- Trino functions a log-decoding query reaches for: an address padded to a 32-byte topic with lpad
-- on varbinary (bytes, not characters), strpos of the n-th occurrence, split_to_map over a
-- key=value string, json_array_contains over a JSON array, trim_array and sha512.
-- see: https://trino.io/docs/current/functions/binary.html#lpad
-- see: https://trino.io/docs/current/functions/string.html#strpos
-- rows: 1
-- columns: topic varchar, second_dot bigint, fee varchar, has_usdc boolean, trimmed array(integer), digest_prefix varchar
-- result: [["0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 11, "30", true, [1, 2], "1F40FC92"]]
SELECT cast(lpad(0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2, 32, 0x00) AS varchar) AS topic,
  strpos('uniswap.v3.pool', '.', 2) AS second_dot,
  split_to_map('pool=weth-usdc,fee=30', ',', '=')['fee'] AS fee,
  json_array_contains('["WETH", "USDC"]', 'USDC') AS has_usdc,
  trim_array(ARRAY[1, 2, 3], 1) AS trimmed,
  substr(to_hex(sha512(to_utf8('a'))), 1, 8) AS digest_prefix
