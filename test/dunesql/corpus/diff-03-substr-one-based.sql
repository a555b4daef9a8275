-- substr positions start at 1; a negative start counts from the end.
-- rows: 1
-- columns: middle varchar, tail varchar, from_one varchar
-- result: [["bcd", "ef", "abc"]]
-- see: https://trino.io/docs/current/functions/string.html#substr
SELECT substr('abcdef', 2, 3) AS middle, substr('abcdef', -2) AS tail, substring('abcdef', 1, 3) AS from_one
