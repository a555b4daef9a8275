-- Same-block trades by the same taker in the same pool (self-join pattern used for MEV dashboards).
-- rows: 0..50
-- columns: block_number bigint, taker varbinary, pool varbinary, trades bigint
SELECT a.block_number, a.taker, a.project_contract_address AS pool, count(*) AS trades
FROM dex.trades a
JOIN dex.trades b ON b.block_number = a.block_number AND b.blockchain = a.blockchain
  AND b.project_contract_address = a.project_contract_address AND b.evt_index <> a.evt_index
GROUP BY 1, 2, 3
ORDER BY trades DESC, 1
LIMIT 50
