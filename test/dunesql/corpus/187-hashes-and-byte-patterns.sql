-- keccak (Ethereum's Keccak-256: the Transfer event's topic0), xxhash64 (seed 0, 8 bytes
-- big-endian, as Trino writes it), crc32, and byte patterns found and replaced at byte boundaries
-- only (0xaa is not in 0x0aa0). NULL in, NULL out.
-- see: https://trino.io/docs/current/functions/binary.html
-- athena-error: keccak\(\) is not available on Athena
-- rows: 1
-- columns: topic0 varbinary, xx varbinary, xx_empty varbinary, crc bigint, replaced varbinary, pos bigint, absent bigint, no_hash varbinary
-- result: [["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", "0x44bc2cf5ad770999", "0xef46db3751d8e999", 3904355907, "0x0aa0ccbbcc", 3, 0, null]]
SELECT keccak(to_utf8('Transfer(address,address,uint256)')) AS topic0,
  xxhash64(to_utf8('abc')) AS xx,
  xxhash64(from_hex('')) AS xx_empty,
  crc32(to_utf8('a')) AS crc,
  varbinary_replace(0x0aa0aabbaa, 0xaa, 0xcc) AS replaced,
  bytearray_position(0x0aa0aa, 0xaa) AS pos,
  varbinary_position(0x0aa0, 0xaa) AS absent,
  keccak(CAST(NULL AS varbinary)) AS no_hash
