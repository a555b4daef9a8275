-- Activity in the 7 days before the data's last day (date_add with a negative amount on a date).
-- rows: 1
-- columns: start_day date, transfers bigint
WITH bounds AS (SELECT max(block_date) AS last_day FROM tokens.transfers)
SELECT date_add('day', -7, last_day) AS start_day, count(*) AS transfers
FROM tokens.transfers, bounds
WHERE block_date > date_add('day', -7, last_day)
GROUP BY 1
