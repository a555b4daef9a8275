-- Last 24 hours, grouped into 4-hour buckets (integer division of hour).
-- rows: 5..7
-- columns: bucket bigint, txs bigint
SELECT hour(block_time) / 4 AS bucket, count(*) AS txs
FROM base.transactions
WHERE block_time > (SELECT max(block_time) FROM base.transactions) - interval '24' hour
GROUP BY 1
ORDER BY 1
