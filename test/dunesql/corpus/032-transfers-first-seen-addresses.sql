-- New addresses per day (first time an address receives a token), cumulative.
-- rows: 28..31
-- columns: first_day date, new_addresses bigint, cumulative_addresses bigint
WITH first_seen AS (
  SELECT "to" AS address, min(block_date) AS first_day
  FROM tokens.transfers
  GROUP BY 1
)
SELECT
  first_day,
  count(*) AS new_addresses,
  sum(count(*)) OVER (ORDER BY first_day) AS cumulative_addresses
FROM first_seen
GROUP BY first_day
ORDER BY first_day
