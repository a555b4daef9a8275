-- Text that is not JSON is NULL to json_extract, json_extract_scalar, json_size,
-- json_array_length and json_array_get, which read it leniently (Trino's JsonExtract returns null
-- on a parse error); json_array_length of an object is NULL too, and json_size where the path
-- finds nothing. json_parse fails instead.
-- rows: 1
-- columns: scalar varchar, extracted json, size bigint, length bigint, element json, object_length bigint, missing bigint, good varchar
-- result: [[null, null, null, null, null, null, null, "uniswap"]]
-- see: https://trino.io/docs/current/functions/json.html#json_extract
SELECT json_extract_scalar('{bad', '$.a') AS scalar,
  json_extract('not json at all', '$.a') AS extracted,
  json_size('{"a": [1, 2', '$.a') AS size,
  json_array_length('[1, 2') AS length,
  json_array_get('[1, 2', 0) AS element,
  json_array_length('{"a": 1}') AS object_length,
  json_size('{"a": 1}', '$.b') AS missing,
  json_extract_scalar('{"project": {"name": "uniswap"}}', '$.project.name') AS good
