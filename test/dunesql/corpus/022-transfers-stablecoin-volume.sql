-- Stablecoin transfer volume per chain (IN list on symbols).
-- rows: 3
-- columns: blockchain varchar, stablecoin_volume double, transfers bigint
SELECT blockchain, sum(amount) AS stablecoin_volume, count(*) AS transfers
FROM tokens.transfers
WHERE symbol IN ('USDC', 'USDT', 'DAI', 'USDC.e', 'USDbC')
  AND block_time > now() - interval '30' day
GROUP BY blockchain
ORDER BY stablecoin_volume DESC
