-- Transfers of a watch list of tokens (IN list of 0x literals) per symbol.
-- rows: 3
-- columns: symbol varchar, transfers bigint
SELECT symbol, count(*) AS transfers
FROM tokens.transfers
WHERE contract_address IN (0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2, 0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48, 0xdac17f958d2ee523a2206206994597c13d831ec7)
GROUP BY 1
ORDER BY 1
