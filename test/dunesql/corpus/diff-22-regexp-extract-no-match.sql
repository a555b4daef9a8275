-- regexp_extract without a match is NULL.
-- rows: 1
-- columns: no_match varchar, match varchar
-- result: [[null, "42"]]
-- see: https://trino.io/docs/current/functions/regexp.html#regexp_extract
SELECT regexp_extract('abc', '\d+') AS no_match, regexp_extract('abc42', '\d+') AS match
