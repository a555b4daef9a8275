-- Unaliased expressions are named _col<position> (0-based); plain columns keep their names.
-- rows: 3
-- columns: blockchain varchar, _col1 bigint, _col2 double
SELECT blockchain, count(*), sum(amount_usd) / 2 FROM dex.trades GROUP BY blockchain ORDER BY 1
