-- Top USDC receivers on Ethereum, contract filtered by a 0x literal.
-- rows: 10
-- columns: receiver varbinary, received double, transfers bigint
SELECT "to" AS receiver, sum(amount) AS received, count(*) AS transfers
FROM tokens.transfers
WHERE blockchain = 'ethereum'
  AND contract_address = 0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48
GROUP BY 1
ORDER BY received DESC
LIMIT 10
