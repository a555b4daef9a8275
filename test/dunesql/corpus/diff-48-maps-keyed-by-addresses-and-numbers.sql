-- A map keyed by varbinary, bigint, date or boolean is a JSON object keyed by the key's text, as
-- the Athena translation writes it (nested values as JSON); the local results gave a list of
-- {key, value} entries for any key other than a varchar or an integer.
-- rows: 1
-- columns: by_address map(varbinary, bigint), by_block map(bigint, integer), by_day map(date, integer)
-- result: [[{"0x01": 2, "0x02": 1}, {"26300008": 1}, {"2024-01-01": 1}]]
SELECT histogram(address) AS by_address,
  map_agg(block_number, 1) FILTER (WHERE block_number IS NOT NULL) AS by_block,
  map(array[date '2024-01-01'], array[1]) AS by_day
FROM (VALUES (0x01, cast(26300008 AS bigint)), (0x01, NULL), (0x02, NULL)) AS t(address, block_number)
