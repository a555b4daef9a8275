-- A column the table does not have is refused before the run, in Trino's words, with the closest names (DuckDB said "Binder Error: Referenced column ... not found in FROM clause!").
-- error: Column 'amount' cannot be resolved\. Did you mean amount_usd, token_sold_amount or token_bought_amount\? DESCRIBE dex\.trades lists its columns\. \(line 3, column 20\)
SELECT blockchain, amount
FROM dex.trades
LIMIT 5
