-- First output of each coinbase via element_at and the [] subscript (1-based), and a missing index.
-- rows: 10
-- columns: height bigint, first_value decimal(18,8), first_address varchar, beyond_last decimal(18,8)
SELECT block_height AS height,
  element_at(outputs, 1).value AS first_value,
  outputs[1].address AS first_address,
  element_at(outputs, 1000).value AS beyond_last
FROM bitcoin.transactions
WHERE is_coinbase
ORDER BY block_height DESC
LIMIT 10
