-- Uniswap pools always have token0 < token1 (varbinary comparison on decoded columns).
-- rows: 1
-- columns: pools bigint, ordered bigint
SELECT count(*) AS pools, count_if(token0 < token1) AS ordered
FROM uniswap_v3_ethereum.Factory_evt_PoolCreated
