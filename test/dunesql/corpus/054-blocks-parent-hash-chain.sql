-- Blocks whose parent hash matches the previous block hash (self-join on varbinary).
-- rows: 1
-- columns: linked bigint, blocks bigint
SELECT count(p.number) AS linked, count(*) AS blocks
FROM arbitrum.blocks b
LEFT JOIN arbitrum.blocks p ON p.hash = b.parent_hash AND p.number = b.number - 1
