-- JSON functions: json_extract_scalar, json_extract, json_parse, json_array_length, json_format.
-- rows: 1
-- columns: name varchar, first_tag varchar, tags bigint, formatted varchar
-- result: [["uniswap", "dex", 2, "{\"a\":1}"]]
SELECT json_extract_scalar('{"project":{"name":"uniswap"},"tags":["dex","amm"]}', '$.project.name') AS name,
  json_extract_scalar('{"tags":["dex","amm"]}', '$.tags[0]') AS first_tag,
  json_array_length(json_extract('{"tags":["dex","amm"]}', '$.tags')) AS tags,
  json_format(json_parse('{"a": 1}')) AS formatted
