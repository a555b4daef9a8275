-- Average in-range liquidity per pool (uint256 cast to double for averages).
-- rows: 5..10
-- columns: pool varbinary, avg_liquidity double, max_liquidity uint256
SELECT contract_address AS pool, avg(cast(liquidity AS double)) AS avg_liquidity, max(liquidity) AS max_liquidity
FROM uniswap_v3_arbitrum.Pair_evt_Swap
GROUP BY 1
ORDER BY 1
