-- A table the catalog does not have is refused before the run, in Trino's words, naming the closest tables (DuckDB said "Catalog Error: Table with name transaction does not exist!").
-- error: Table 'ethereum\.transaction' does not exist\. Did you mean ethereum\.transactions\? SHOW TABLES FROM ethereum lists its tables
SELECT hash, block_number
FROM ethereum.transaction
WHERE block_number > 100
