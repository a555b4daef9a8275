-- SHOW TABLES without FROM lists the current schema's tables in Trino; a query here has no current
-- schema (tables are always named with theirs), so it fails saying what to write instead.
-- see: https://trino.io/docs/current/sql/show-tables.html
-- error: SHOW TABLES needs a schema, as there is no current one: SHOW TABLES FROM ethereum
SHOW TABLES
