-- Only queries run: DDL is refused before anything runs.
-- error: only read-only queries
CREATE TABLE mine AS SELECT * FROM dex.trades
