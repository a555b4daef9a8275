-- GROUP BY an alias of the select list: Trino reads only FROM's columns there (DuckDB fell back to the alias, so this ran locally and failed on Athena and Dune).
-- error: Column 'day' cannot be resolved: GROUP BY .* Write GROUP BY 1
SELECT date_trunc('day', block_time) AS day, count(*) AS trades
FROM dex.trades
GROUP BY day
ORDER BY day
