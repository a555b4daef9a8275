-- Labels from an inline VALUES table of 0x addresses joined to transfers (a common dashboard idiom).
-- rows: 2..3
-- columns: label varchar, transfers bigint, volume_usd double
WITH labels (address, label) AS (
  VALUES (0x4200000000000000000000000000000000000006, 'WETH (Base)'),
         (0x833589fcd6edb6e08f4c7c32d4f71b54bda02913, 'USDC (Base)'),
         (0x0000000000000000000000000000000000000001, 'nothing')
)
SELECT l.label, count(*) AS transfers, sum(t.amount_usd) AS volume_usd
FROM labels l
JOIN tokens.transfers t ON t.contract_address = l.address AND t.blockchain = 'base'
GROUP BY 1
ORDER BY 1
