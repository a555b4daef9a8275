-- histogram counts are bigint, as Trino's (DuckDB's UBIGINT counts read as decimal(20,0));
-- bitwise_and/or/xor/not take and return bigint whatever integer goes in; to_base writes Java's
-- lowercase digits and a minus sign below zero (DuckDB wrote FF and refused negative numbers).
-- see: https://trino.io/docs/current/functions/math.html#to_base
-- rows: 1
-- columns: counts map(integer, bigint), anded bigint, flipped bigint, hex varchar, negative varchar
-- result: [[{"1": 2, "2": 1}, 8, -1, "ff", "-101"]]
SELECT histogram(x) AS counts,
  bitwise_and(12, 10) AS anded,
  bitwise_not(0) AS flipped,
  to_base(255, 16) AS hex,
  to_base(-5, 2) AS negative
FROM (VALUES 1, 1, 2) AS t(x)
