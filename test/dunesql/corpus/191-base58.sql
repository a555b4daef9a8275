-- Dune's Base58 functions (Bitcoin's alphabet), for Solana addresses and instruction data: the
-- docs' example decodes an instruction, skips its 1-byte discriminator and reads the little-endian
-- amount. Leading zero bytes are 1s. NULL in, NULL out.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/base58
-- athena-error: from_base58\(\) is not available on Athena
-- rows: 1
-- columns: decoded varbinary, encoded varchar, amount bigint, zeros varchar, empty varchar, none varbinary
-- result: [["0x030094357700000000", "3DZBMRwnSU8f", 2000000000, "115Q", "", null]]
SELECT from_base58('3DZBMRwnSU8f') AS decoded,
  to_base58(0x030094357700000000) AS encoded,
  bytearray_to_bigint(bytearray_reverse(bytearray_substring(from_base58('3DZBMRwnSU8f'), 2, 8))) AS amount,
  to_base58(0x0000ff) AS zeros,
  to_base58(from_hex('')) AS empty,
  from_base58(CAST(NULL AS varchar)) AS none
