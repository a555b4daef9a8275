-- Building varbinary values: concat of literals, from_hex with and without 0x, to_hex round trip.
-- rows: 1
-- columns: joined varbinary, len bigint, hex varchar, same boolean
-- result: [["0xabcdef01", 4, "ABCDEF01", true]]
-- see: https://trino.io/docs/current/functions/binary.html (to_hex: Guava base16, upper case)
SELECT varbinary_concat(0xabcd, 0xef01) AS joined,
  varbinary_length(0xabcdef01) AS len,
  to_hex(0xabcd || 0xef01) AS hex,
  from_hex('abcdef01') = from_hex('0xABCDEF01') AS same
