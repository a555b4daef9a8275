-- Running WETH balance changes of the busiest Base account (window sum over signed amounts).
-- rows: 1..200
-- columns: evt_block_time timestamp(3), delta double, running_balance double
WITH weth AS (
  SELECT evt_block_time, evt_index, "to" AS account, cast(value AS double) / 1e18 AS delta
  FROM erc20_base.evt_Transfer WHERE contract_address = 0x4200000000000000000000000000000000000006
  UNION ALL
  SELECT evt_block_time, evt_index, "from" AS account, -cast(value AS double) / 1e18 AS delta
  FROM erc20_base.evt_Transfer WHERE contract_address = 0x4200000000000000000000000000000000000006
), busiest AS (
  SELECT account FROM weth GROUP BY account ORDER BY count(*) DESC LIMIT 1
)
SELECT
  evt_block_time,
  delta,
  sum(delta) OVER (ORDER BY evt_block_time, evt_index) AS running_balance
FROM weth
WHERE account IN (SELECT account FROM busiest)
ORDER BY evt_block_time, evt_index
LIMIT 200
