-- Big-endian conversions: varbinary_to_bigint / _integer / _uint256 of short byte strings.
-- rows: 1
-- columns: as_bigint bigint, as_integer integer, as_uint256 uint256, negative bigint
-- result: [[256, 65535, "1000", -1]]
SELECT varbinary_to_bigint(0x0100) AS as_bigint,
  varbinary_to_integer(0x0000ffff) AS as_integer,
  varbinary_to_uint256(0x03e8) AS as_uint256,
  varbinary_to_bigint(0xffffffffffffffff) AS negative
