-- varbinary_ltrim / rtrim strip leading / trailing zero bytes (address out of a topic word).
-- rows: 1
-- columns: ltrimmed varbinary, rtrimmed varbinary, ends boolean
-- result: [["0xc02aaa39", "0x0000c02a", true]]
SELECT varbinary_ltrim(0x00000000c02aaa39) AS ltrimmed,
  varbinary_rtrim(0x0000c02a00000000) AS rtrimmed,
  varbinary_ends_with(0x00000000c02aaa39, 0xaa39) AS ends
