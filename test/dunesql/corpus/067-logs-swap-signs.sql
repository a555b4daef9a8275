-- Every decoded swap has exactly one positive and one negative leg (int256 sign checks).
-- rows: 1
-- columns: swaps bigint, one_in_one_out bigint
SELECT count(*) AS swaps,
  count_if((amount0 > 0 AND amount1 < 0) OR (amount0 < 0 AND amount1 > 0)) AS one_in_one_out
FROM (
  SELECT varbinary_to_int256(varbinary_substring(data, 1, 32)) AS amount0,
         varbinary_to_int256(varbinary_substring(data, 33, 32)) AS amount1
  FROM base.logs
  WHERE topic0 = 0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67
) s
