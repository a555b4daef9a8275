-- Share of swaps sent through the SwapRouter02 (sender equals the router address literal).
-- rows: 1
-- columns: swaps bigint, via_router bigint
SELECT count(*) AS swaps, count(*) FILTER (WHERE sender = 0x68b3465833fb72a70ecdf485e0e4c7bd8665fc45) AS via_router
FROM uniswap_v3_ethereum.Pair_evt_Swap
