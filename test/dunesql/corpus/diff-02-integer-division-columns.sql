-- Integer columns divide as integers too: gas_used / 1000 is a bigint, never a fraction.
-- rows: 1
-- columns: kgas integer, exact boolean
-- result: [[21, true]]
SELECT 21000 / 1000 AS kgas, (CAST(21999 AS bigint) / 1000) * 1000 = 21000 AS exact
