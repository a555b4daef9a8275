-- Price rows per token per day are one per minute (1440 for whole days).
-- rows: 1
-- columns: full_days bigint, max_rows bigint
SELECT count_if(n = 1440) AS full_days, max(n) AS max_rows
FROM (
  SELECT symbol, blockchain, cast(minute AS date) AS day, count(*) AS n
  FROM prices.usd
  WHERE symbol = 'WETH'
  GROUP BY 1, 2, 3
) d
