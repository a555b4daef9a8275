-- Distinct event signatures (topic0) and their hex, lower-cased as Dune users print them.
-- rows: 2..100
-- columns: topic0_hex varchar, logs bigint
SELECT '0x' || lower(to_hex(topic0)) AS topic0_hex, count(*) AS logs
FROM arbitrum.logs
GROUP BY 1
ORDER BY logs DESC
