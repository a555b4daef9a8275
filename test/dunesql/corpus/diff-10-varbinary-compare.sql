-- varbinary compares as unsigned bytes, lexicographically (a longer value with the same prefix is greater).
-- rows: 1
-- columns: lt boolean, unsigned boolean, longer boolean, eq boolean
-- result: [[true, true, true, true]]
SELECT 0xab < 0xac AS lt, 0xff > 0x01 AS unsigned, 0x0100 > 0x01 AS longer, 0xABCD = from_hex('abcd') AS eq
