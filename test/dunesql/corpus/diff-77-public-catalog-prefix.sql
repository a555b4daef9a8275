-- Dune's public tables live in the catalog delta_prod, and Spellbook models and copied queries
-- name them so (`delta_prod.tokens.erc20`). The local engine has no catalog of that name ("Catalog
-- delta_prod does not exist"); the translation reads it as the table itself, on both hosts.
-- see: https://github.com/duneanalytics/spellbook
-- rows: 3
-- columns: blockchain varchar, decimals integer
-- result: [["arbitrum", 18], ["base", 18], ["ethereum", 18]]
SELECT t.blockchain, t.decimals FROM delta_prod.tokens.erc20 AS t WHERE t.symbol = 'WETH' ORDER BY 1
