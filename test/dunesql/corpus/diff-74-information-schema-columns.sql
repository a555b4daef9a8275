-- information_schema.columns lists a table's columns in DuneSQL's type names, with the catalog's
-- descriptions as comments, as Dune's Trino does. The local engine answered from DuckDB's own
-- schema: BLOB, UHUGEINT and TIMESTAMP for varbinary, uint256 and timestamp, and catalogs and
-- schemas of the engine itself (system, temp, main, pg_catalog).
-- see: https://trino.io/docs/current/connector/system.html
-- rows: 3
-- columns: table_catalog varchar, column_name varchar, ordinal_position bigint, data_type varchar, is_nullable varchar
-- result: [["delta_prod", "hash", 5, "varbinary", "YES"], ["delta_prod", "from", 7, "varbinary", "YES"], ["delta_prod", "value", 9, "uint256", "YES"]]
SELECT table_catalog, column_name, ordinal_position, data_type, is_nullable
FROM information_schema.columns
WHERE table_schema = 'ethereum' AND table_name = 'transactions' AND column_name IN ('hash', 'from', 'value')
ORDER BY ordinal_position
