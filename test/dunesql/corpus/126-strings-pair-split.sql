-- Volume per token from the pair label (split() into an array, UNNEST the legs).
-- rows: 5..30
-- columns: token varchar, volume_usd double
SELECT token, sum(amount_usd) AS volume_usd
FROM dex.trades
CROSS JOIN UNNEST(split(token_pair, '-')) AS t(token)
GROUP BY 1
ORDER BY 2 DESC
