-- Histogram of trade sizes with width_bucket over log10(amount_usd).
-- rows: 2..12
-- columns: bucket bigint, trades bigint
SELECT width_bucket(log10(amount_usd), 0, 7, 7) AS bucket, count(*) AS trades
FROM dex.trades
WHERE amount_usd > 1
GROUP BY 1
ORDER BY 1
