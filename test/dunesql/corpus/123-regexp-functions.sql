-- Regular expressions: regexp_like, regexp_extract (group), regexp_replace, regexp_count.
-- rows: 1
-- columns: is_hex boolean, version varchar, cleaned varchar, digits bigint
-- result: [[true, "3", "uniswap v ", 1]]
SELECT regexp_like('0xc02aaa39', '^0x[0-9a-f]+$') AS is_hex,
  regexp_extract('uniswap-v3', 'v(\d+)', 1) AS version,
  regexp_replace('uniswap-v3', '[-0-9]', ' ') AS cleaned,
  regexp_count('uniswap-v3', '\d') AS digits
