-- New vs returning traders per day (first trade day via min() over a partition).
-- rows: 25..31
-- columns: block_date date, new_traders bigint, returning_traders bigint
WITH trader_days AS (
  SELECT DISTINCT block_date, taker FROM dex.trades
), firsts AS (
  SELECT block_date, taker, min(block_date) OVER (PARTITION BY taker) AS first_day
  FROM trader_days
)
SELECT
  block_date,
  count_if(block_date = first_day) AS new_traders,
  count_if(block_date > first_day) AS returning_traders
FROM firsts
GROUP BY block_date
ORDER BY block_date
