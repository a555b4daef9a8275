-- Building JSON per pool for an API-style dashboard (cast of a map to json, json_extract_scalar back).
-- rows: 3
-- columns: blockchain varchar, trades_json varchar
SELECT blockchain, json_format(cast(map(array['trades', 'traders'], array[count(*), count(DISTINCT taker)]) AS json)) AS trades_json
FROM dex.trades
GROUP BY 1
ORDER BY 1
