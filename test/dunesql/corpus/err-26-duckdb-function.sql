-- A function only DuckDB has (list_value) is refused as Athena refuses it, not run on the local engine.
-- error: Function 'list_value' not registered: it is not a Trino function nor one of Dune's
SELECT list_value(blockchain, project) AS pair
FROM dex.trades
LIMIT 5
