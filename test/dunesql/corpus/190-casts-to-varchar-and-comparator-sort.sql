-- DuneSQL's cast to varchar: a varbinary gives 0x and lowercase hex (a DuneSQL extension, common in
-- links: 'https://etherscan.io/tx/' || cast(tx_hash as varchar)), a timestamp its milliseconds and
-- zone, a double Java's notation (1.0E7, NaN), as Trino's cast writes it. array_sort with a
-- comparator sorts stably by it (DuckDB's sort takes none).
-- see: https://trino.io/docs/current/functions/array.html#array_sort
-- rows: 1
-- columns: link varchar, bytes varchar, ts varchar, big varchar, small varchar, plain varchar, nan varchar, r varchar, n varchar, d varchar, u varchar, desc_sorted array(integer), by_length array(varchar), stable array(integer)
-- result: [["https://etherscan.io/tx/0xabcdef01", "0x00ff", "2024-01-02 03:04:05.678 UTC", "1.0E7", "1.0E-4", "1.5", "NaN", "0.1", null, "2024-01-02", "12345678901234567890", [3, 2, 1], ["a", "bb", "ccc"], [5, 1, 5, 2]]]
SELECT 'https://etherscan.io/tx/' || cast(0xabcdef01 AS varchar) AS link,
  try_cast(from_hex('00ff') AS varchar) AS bytes,
  cast(timestamp '2024-01-02 03:04:05.678' AS varchar) AS ts,
  cast(1e7 AS varchar) AS big,
  cast(1e-4 AS varchar) AS small,
  cast(1.5e0 AS varchar) AS plain,
  cast(nan() AS varchar) AS nan,
  cast(cast(0.1 AS real) AS varchar) AS r,
  cast(cast(NULL AS varbinary) AS varchar) AS n,
  cast(date '2024-01-02' AS varchar) AS d,
  cast(cast('12345678901234567890' AS uint256) AS varchar) AS u,
  array_sort(ARRAY[3, 1, 2], (a, b) -> IF(a < b, 1, IF(a = b, 0, -1))) AS desc_sorted,
  array_sort(ARRAY['bb', 'ccc', 'a'], (x, y) -> IF(length(x) < length(y), -1, IF(length(x) = length(y), 0, 1))) AS by_length,
  array_sort(ARRAY[5, 1, 5, 2], (a, b) -> 0) AS stable
