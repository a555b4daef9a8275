-- map_agg of symbol to decimals per chain, then a lookup by key.
-- rows: 3
-- columns: blockchain varchar, weth_decimals integer, tokens bigint
SELECT blockchain, element_at(map_agg(symbol, decimals), 'WETH') AS weth_decimals, cardinality(map_agg(symbol, decimals)) AS tokens
FROM tokens.erc20
GROUP BY 1
ORDER BY 1
