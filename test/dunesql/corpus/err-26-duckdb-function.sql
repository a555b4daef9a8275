-- A function only DuckDB has (list_resize) is refused as Athena refuses it, not run on the local engine.
-- error: Function 'list_resize' not registered: it is not a Trino function nor one of Dune's
SELECT list_resize(array[blockchain, project], 3) AS pair
FROM dex.trades
LIMIT 5
