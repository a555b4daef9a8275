-- Monthly volume by project and version (block_month partition column).
-- rows: 1..6
-- columns: block_month date, project varchar, version varchar, volume_usd double
SELECT block_month, project, version, sum(amount_usd) AS volume_usd
FROM dex.trades
GROUP BY 1, 2, 3
ORDER BY 1, 4 DESC
