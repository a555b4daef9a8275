-- Net token flows per pool: exact int256 sums of signed amounts.
-- rows: 5..10
-- columns: pool varbinary, net_amount0 int256, net_amount1 int256, swaps bigint
SELECT contract_address AS pool, sum(amount0) AS net_amount0, sum(amount1) AS net_amount1, count(*) AS swaps
FROM uniswap_v3_arbitrum.Pair_evt_Swap
GROUP BY 1
ORDER BY swaps DESC, pool
