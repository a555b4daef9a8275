-- Swap direction per pool: token0 in vs token1 in (sign of int256 amounts).
-- rows: 5..11
-- columns: pool varbinary, zero_for_one bigint, one_for_zero bigint
SELECT contract_address AS pool,
  count(*) FILTER (WHERE amount0 > 0) AS zero_for_one,
  count(*) FILTER (WHERE amount1 > 0) AS one_for_zero
FROM uniswap_v3_ethereum.Pair_evt_Swap
GROUP BY 1
ORDER BY 1
