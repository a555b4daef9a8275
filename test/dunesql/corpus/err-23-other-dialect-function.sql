-- A function of another dialect that DuckDB has (strftime) is refused with DuneSQL's equivalent, not run.
-- error: strftime\(\) is not a DuneSQL function: write date_format
SELECT strftime(block_time, '%Y-%m') AS month, count(*) AS trades
FROM dex.trades
GROUP BY 1
