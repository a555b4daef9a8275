-- A cast of text to varchar(n) keeps its first n characters in Trino (cast('banana' as varchar(3))
-- is 'ban', also for try_cast and a column); DuckDB ignored the length and kept the whole text.
-- see: https://github.com/trinodb/trino/blob/master/core/trino-main/src/main/java/io/trino/operator/scalar/CharacterStringCasts.java
-- rows: 1
-- columns: literal varchar, column varchar, tried varchar, wide_enough varchar, code_points varchar
-- result: [["ban", "0x12", "0x", "0x1234", "straß"]]
SELECT cast('banana' AS varchar(3)) AS literal,
  cast(address AS varchar(4)) AS column,
  try_cast(address AS varchar(2)) AS tried,
  cast(address AS varchar(20)) AS wide_enough,
  cast('straße' AS varchar(5)) AS code_points
FROM (VALUES '0x1234') AS t(address)
