-- Transfers that belong to DEX trades (semi-join on tx hash with EXISTS).
-- rows: 1
-- columns: swap_transfers bigint, other_transfers bigint
SELECT
  count_if(EXISTS (SELECT 1 FROM dex.trades d WHERE d.tx_hash = t.tx_hash)) AS swap_transfers,
  count_if(NOT EXISTS (SELECT 1 FROM dex.trades d WHERE d.tx_hash = t.tx_hash)) AS other_transfers
FROM tokens.transfers t
WHERE t.blockchain = 'ethereum'
