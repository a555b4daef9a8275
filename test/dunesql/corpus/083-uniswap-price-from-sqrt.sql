-- Pool price from sqrtPriceX96 (uint256 to double, power of 2^96), latest swap per pool.
-- rows: 5..11
-- columns: pool varbinary, evt_block_time timestamp(3), raw_price double, tick integer
SELECT pool, evt_block_time, raw_price, tick
FROM (
  SELECT contract_address AS pool, evt_block_time, tick,
    power(cast(sqrtPriceX96 AS double) / power(2, 96), 2) AS raw_price,
    row_number() OVER (PARTITION BY contract_address ORDER BY evt_block_number DESC, evt_index DESC) AS rn
  FROM uniswap_v3_base.Pair_evt_Swap
) latest
WHERE rn = 1
ORDER BY pool
