-- MySQL's and DuckDB's interval (a number, a plural unit) is refused with Trino's form to write: it ran locally and failed on Athena and Dune.
-- error: DuneSQL writes an interval's value as a string: interval '7' day
SELECT count(*) AS trades
FROM dex.trades
WHERE block_time > now() - interval 7 day
