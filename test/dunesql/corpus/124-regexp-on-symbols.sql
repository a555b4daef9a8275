-- Tokens whose symbol looks wrapped or bridged (regexp_like on a column).
-- rows: 5..15
-- columns: blockchain varchar, symbol varchar
SELECT blockchain, symbol FROM tokens.erc20
WHERE regexp_like(symbol, '^(W|cb)|\.e$|bC$')
ORDER BY 1, 2
