-- Quoted identifiers with spaces and mixed case as dashboard column titles.
-- rows: 3
-- columns: Chain varchar, Volume (USD) double
SELECT blockchain AS "Chain", sum(amount_usd) AS "Volume (USD)"
FROM dex.trades
GROUP BY 1
ORDER BY 1
