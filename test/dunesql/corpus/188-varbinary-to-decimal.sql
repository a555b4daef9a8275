-- varbinary_to_decimal reads 16 big-endian bytes in two's complement; shorter input is padded with
-- zero bytes in front, so only a full 16 bytes with the top bit set is negative.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/varbinary
-- rows: 1
-- columns: short decimal(38,0), minus_one decimal(38,0), word decimal(38,0), old_name bigint
-- result: [[64536, -1, 1000, 1000]]
SELECT varbinary_to_decimal(0xfc18) AS short,
  varbinary_to_decimal(0xffffffffffffffffffffffffffffffff) AS minus_one,
  varbinary_to_decimal(varbinary_ltrim(0x00000000000000000000000000000000000000000000000000000000000003e8)) AS word,
  bytea2numeric(0x03e8) AS old_name
