-- length() counts bytes of varbinary and characters of varchar, also over aggregates.
-- rows: 1
-- columns: bytes bigint, chars bigint, agg_chars bigint, agg_bytes bigint
-- result: [[20, 5, 5, 32]]
SELECT length(0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2) AS bytes, length('héllo') AS chars,
  (SELECT length(max(s)) FROM (VALUES 'héllo') AS t (s)) AS agg_chars,
  (SELECT length(max(hash)) FROM ethereum.transactions) AS agg_bytes
