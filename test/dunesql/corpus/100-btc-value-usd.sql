-- Daily BTC moved in USD (join the native BTC price by minute; native prices have NULL contract_address).
-- rows: 25..31
-- columns: day date, btc_moved double, usd_moved double
SELECT t.block_date AS day,
  sum(cast(t.output_value AS double)) AS btc_moved,
  sum(cast(t.output_value AS double) * p.price) AS usd_moved
FROM bitcoin.transactions t
JOIN prices.usd p ON p.symbol = 'BTC' AND p.contract_address IS NULL AND p.minute = date_trunc('minute', t.block_time)
GROUP BY 1
ORDER BY 1
