-- Trino's `TABLE t` (every column of t, as a query) in an IN list and a set operation, and a
-- `/*+ … */` comment inside a join condition: polyglot's parser read neither (the comment as an
-- optimizer hint), and real Dune queries write both.
-- see: https://trino.io/docs/current/sql/select.html#table
-- rows: 1
-- columns: chains bigint, trades bigint
WITH chains AS (
  SELECT DISTINCT blockchain FROM dex.trades
), both_ways AS (
  TABLE chains UNION ALL TABLE chains
)
SELECT (SELECT count(*) FROM both_ways) / 2 AS chains,
  count(*) AS trades
FROM dex.trades t
JOIN dex.trades u ON t.tx_hash /*+ the same transaction */ = u.tx_hash AND t.evt_index = u.evt_index
WHERE t.blockchain IN (TABLE chains)
