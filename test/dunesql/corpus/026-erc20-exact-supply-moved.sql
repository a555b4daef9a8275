-- Exact raw amounts moved per token (sum of uint256 stays uint256).
-- rows: 9
-- columns: contract_address varbinary, raw_moved uint256, transfers bigint
SELECT contract_address, sum(value) AS raw_moved, count(*) AS transfers
FROM erc20_ethereum.evt_Transfer
GROUP BY contract_address
ORDER BY contract_address
