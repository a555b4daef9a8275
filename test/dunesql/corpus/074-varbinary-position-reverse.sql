-- varbinary_position (1-based byte index) and varbinary_reverse.
-- rows: 1
-- columns: pos bigint, missing bigint, reversed varbinary
-- result: [[3, 0, "0x030201"]]
SELECT varbinary_position(0x010203, 0x03) AS pos,
  varbinary_position(0x010203, 0x04) AS missing,
  varbinary_reverse(0x010203) AS reversed
