-- Trade size distribution in USD buckets (CASE bucketing).
-- rows: 2..6
-- columns: size_bucket varchar, trades bigint, volume_usd double
SELECT
  CASE
    WHEN amount_usd < 100 THEN '1. < $100'
    WHEN amount_usd < 1000 THEN '2. $100-1k'
    WHEN amount_usd < 10000 THEN '3. $1k-10k'
    WHEN amount_usd < 100000 THEN '4. $10k-100k'
    ELSE '5. > $100k'
  END AS size_bucket,
  count(*) AS trades,
  sum(amount_usd) AS volume_usd
FROM dex.trades
WHERE block_time > now() - interval '30' day
GROUP BY 1
ORDER BY 1
