-- Approximate holders per token: addresses with a positive net received amount (uint256 cast to double).
-- rows: 5..9
-- columns: symbol varchar, holders bigint
WITH net AS (
  SELECT contract_address, "to" AS address, cast(value AS double) AS delta FROM erc20_ethereum.evt_Transfer
  UNION ALL
  SELECT contract_address, "from", -cast(value AS double) FROM erc20_ethereum.evt_Transfer
), balances AS (
  SELECT contract_address, address, sum(delta) AS balance FROM net GROUP BY 1, 2
)
SELECT t.symbol, count(*) AS holders
FROM balances b
JOIN tokens.erc20 t ON t.blockchain = 'ethereum' AND t.contract_address = b.contract_address
WHERE b.balance > 0
GROUP BY 1
ORDER BY holders DESC, symbol
