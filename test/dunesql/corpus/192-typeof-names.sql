-- typeof names DuneSQL's types, as Trino does, not the local engine's own (INTEGER, BLOB, UHUGEINT).
-- see: https://trino.io/docs/current/functions/conversion.html#typeof
-- rows: 1
-- columns: i varchar, d varchar, f varchar, b varchar, u varchar, a varchar, m varchar, r varchar, n varchar
-- result: [["integer", "decimal(2,1)", "double", "varbinary", "uint256", "array(integer)", "map(varchar, integer)", "row(n integer, s varchar)", "unknown"]]
SELECT typeof(1) AS i,
  typeof(1.5) AS d,
  typeof(1e0) AS f,
  typeof(0x01) AS b,
  typeof(cast(1 AS uint256)) AS u,
  typeof(ARRAY[1]) AS a,
  typeof(map(ARRAY['a'], ARRAY[1])) AS m,
  typeof(cast(row(1, 'a') AS row(n integer, s varchar))) AS r,
  typeof(NULL) AS n
