-- String functions: split_part, strpos, replace, upper, lpad, concat_ws, length, reverse, trim.
-- rows: 1
-- columns: base_token varchar, pos bigint, replaced varchar, up varchar, padded varchar, joined varchar, len bigint, rev varchar, trimmed varchar
-- result: [["USDC", 5, "USDC/WETH", "WETH", "007", "a-b", 9, "HTEW-CDSU", "x"]]
SELECT split_part('USDC-WETH', '-', 1) AS base_token,
  strpos('USDC-WETH', '-') AS pos,
  replace('USDC-WETH', '-', '/') AS replaced,
  upper('weth') AS up,
  lpad('7', 3, '0') AS padded,
  concat_ws('-', 'a', 'b') AS joined,
  length('USDC-WETH') AS len,
  reverse('USDC-WETH') AS rev,
  trim('  x  ') AS trimmed
