-- Running raw balance over real uint256 values stays uint256 (a running sum over a column).
-- rows: 5
-- columns: evt_block_time timestamp(3), value uint256, running uint256
SELECT evt_block_time, value, sum(value) OVER (ORDER BY evt_block_time, evt_index) AS running
FROM erc20_ethereum.evt_Transfer
WHERE contract_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2
ORDER BY evt_block_time, evt_index
LIMIT 5
