-- Swaps per pool with the pool's tokens (decoded Swap joined to PoolCreated on the pool address).
-- rows: 5..11
-- columns: pool varbinary, fee integer, swaps bigint, traders bigint
SELECT s.contract_address AS pool, p.fee, count(*) AS swaps, count(DISTINCT s.recipient) AS traders
FROM uniswap_v3_ethereum.Pair_evt_Swap s
JOIN uniswap_v3_ethereum.Factory_evt_PoolCreated p ON p.pool = s.contract_address
GROUP BY 1, 2
ORDER BY swaps DESC
