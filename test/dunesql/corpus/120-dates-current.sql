-- now(), current_date and current_timestamp agree; the data never lies in the future.
-- rows: 1
-- columns: same_day boolean, future_rows bigint
SELECT cast(now() AS date) = current_date AS same_day,
  (SELECT count(*) FROM dex.trades WHERE block_time > current_timestamp) AS future_rows
