-- dex.trades rows match decoded swaps one to one (join on tx hash and evt_index).
-- rows: 1
-- columns: swaps bigint, in_dex_trades bigint
SELECT count(*) AS swaps, count(d.tx_hash) AS in_dex_trades
FROM uniswap_v3_ethereum.Pair_evt_Swap s
LEFT JOIN dex.trades d ON d.blockchain = 'ethereum' AND d.tx_hash = s.evt_tx_hash AND d.evt_index = s.evt_index
