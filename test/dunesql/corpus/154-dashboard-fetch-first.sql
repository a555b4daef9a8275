-- FETCH FIRST n ROWS ONLY (standard row limiting that Trino accepts).
-- rows: 5
-- columns: symbol varchar, transfers bigint
SELECT symbol, count(*) AS transfers
FROM tokens.transfers
GROUP BY 1
ORDER BY transfers DESC, symbol
FETCH FIRST 5 ROWS ONLY
