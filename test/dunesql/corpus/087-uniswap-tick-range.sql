-- Tick range per pool and day (min/max of integer ticks, date column).
-- rows: 20..300
-- columns: evt_block_date date, pool varbinary, min_tick integer, max_tick integer
SELECT evt_block_date, contract_address AS pool, min(tick) AS min_tick, max(tick) AS max_tick
FROM uniswap_v3_base.Pair_evt_Swap
GROUP BY 1, 2
ORDER BY 1, 2
