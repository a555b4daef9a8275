-- json_parse (and a JSON literal) writes JSON as Trino does: no whitespace, object keys sorted at
-- every level, integers exact at any size, decimals as doubles (1.50 is 1.5). Text that is not JSON
-- fails the query.
-- see: https://trino.io/docs/current/functions/json.html#json_parse
-- rows: 1
-- columns: parsed varchar, literal varchar, nested varchar, big varchar, none json
-- result: [["{\"a\":[1,2],\"b\":1.5,\"c\":\"x\"}", "{\"a\":2,\"b\":1}", "{\"k\":{\"y\":null,\"z\":true}}", "[12345678901234567890]", null]]
SELECT json_format(json_parse('{"c": "x", "b": 1.50, "a": [1, 2]}')) AS parsed,
  json_format(JSON '{"b": 1, "a": 2}') AS literal,
  json_format(json_parse('{"k": {"z": true, "y": null}}')) AS nested,
  json_format(json_parse('[12345678901234567890]')) AS big,
  json_parse(CAST(NULL AS varchar)) AS none
