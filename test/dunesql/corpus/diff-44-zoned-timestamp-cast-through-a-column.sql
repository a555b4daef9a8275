-- A zone-moved timestamp read through a CTE's or a subquery's column and cast to varchar is
-- written with its zone, as Trino writes a timestamp with time zone (diff-40 casts it where the
-- cast holds the AT TIME ZONE itself). DuckDB wrote its wall-clock time labelled UTC.
-- see: https://trino.io/docs/current/functions/conversion.html#cast
-- rows: 1
-- columns: ny_text varchar, day_text varchar, tokyo_text varchar
-- result: [["2024-01-01 07:00:00.000 America/New_York", "2024-01-01 00:00:00.000 America/New_York", "2024-01-01 21:00:00.000 Asia/Tokyo"]]
WITH t AS (SELECT timestamp '2024-01-01 12:00:00.000' AT TIME ZONE 'America/New_York' AS ny)
SELECT cast(ny AS varchar) AS ny_text,
  try_cast(date_trunc('day', t.ny) AS varchar) AS day_text,
  (SELECT cast(tokyo AS varchar) FROM (SELECT at_timezone(timestamp '2024-01-01 12:00:00.000', 'Asia/Tokyo') AS tokyo)) AS tokyo_text
FROM t
