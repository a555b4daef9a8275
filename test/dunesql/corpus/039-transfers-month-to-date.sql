-- Month-to-date USD transferred (date_trunc month of current_date, a date).
-- rows: 1
-- columns: month_start date, volume_usd double
SELECT date_trunc('month', current_date) AS month_start, sum(amount_usd) AS volume_usd
FROM tokens.transfers
WHERE block_date >= date_trunc('month', current_date - interval '1' day)
