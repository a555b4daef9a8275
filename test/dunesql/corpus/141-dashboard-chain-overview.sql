-- Chain overview counters for a dashboard header (several scalar subqueries in one row).
-- rows: 1
-- columns: eth_txs_24h bigint, base_txs_24h bigint, arb_txs_24h bigint, dex_volume_24h double
SELECT
  (SELECT count(*) FROM ethereum.transactions WHERE block_time > now() - interval '1' day - interval '1' hour) AS eth_txs_24h,
  (SELECT count(*) FROM base.transactions WHERE block_time > now() - interval '25' hour) AS base_txs_24h,
  (SELECT count(*) FROM arbitrum.transactions WHERE block_time > now() - interval '25' hour) AS arb_txs_24h,
  (SELECT sum(amount_usd) FROM dex.trades WHERE block_time > now() - interval '25' hour) AS dex_volume_24h
