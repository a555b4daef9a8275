-- Native vs bridged USDC on Arbitrum (CASE on varbinary literal, share of transfers).
-- rows: 2
-- columns: kind varchar, transfers bigint, share double
SELECT CASE WHEN contract_address = 0xaf88d065e77c8cc2239327c5edb3a432268e5831 THEN 'native' ELSE 'bridged' END AS kind,
  count(*) AS transfers,
  cast(count(*) AS double) / sum(count(*)) OVER () AS share
FROM erc20_arbitrum.evt_Transfer
WHERE contract_address IN (0xaf88d065e77c8cc2239327c5edb3a432268e5831, 0xff970a61a04b1ca14834a43f5de4533ebddb5cc8)
GROUP BY 1
ORDER BY 1
