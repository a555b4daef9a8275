-- from_unixtime / to_unixtime round trip on block times (UTC).
-- rows: 1
-- columns: epoch double, back timestamp(3) with time zone, fixed timestamp(3) with time zone
SELECT to_unixtime(max(time)) AS epoch,
  from_unixtime(to_unixtime(max(time))) AS back,
  from_unixtime(1700000000) AS fixed
FROM ethereum.blocks
