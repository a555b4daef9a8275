-- Net token flows per address (UNION ALL of inflows and negative outflows).
-- rows: 20
-- columns: address varbinary, symbol varchar, net_amount double
WITH flows AS (
  SELECT "to" AS address, symbol, amount FROM tokens.transfers WHERE blockchain = 'arbitrum'
  UNION ALL
  SELECT "from" AS address, symbol, -amount FROM tokens.transfers WHERE blockchain = 'arbitrum'
)
SELECT address, symbol, sum(amount) AS net_amount
FROM flows
GROUP BY 1, 2
ORDER BY abs(sum(amount)) DESC
LIMIT 20
