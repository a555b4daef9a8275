-- Traders active on both Base and Arbitrum (INTERSECT) and only on Ethereum (EXCEPT).
-- rows: 1
-- columns: both_l2s bigint, ethereum_only bigint
SELECT
  (SELECT count(*) FROM (SELECT taker FROM dex.trades WHERE blockchain = 'base' INTERSECT SELECT taker FROM dex.trades WHERE blockchain = 'arbitrum') x) AS both_l2s,
  (SELECT count(*) FROM (SELECT taker FROM dex.trades WHERE blockchain = 'ethereum' EXCEPT SELECT taker FROM dex.trades WHERE blockchain <> 'ethereum') y) AS ethereum_only
