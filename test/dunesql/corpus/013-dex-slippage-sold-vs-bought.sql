-- Implied cost of a trade: sold value vs bought value, joined to prices.usd at the minute.
-- rows: 50..200
-- columns: tx_hash varbinary, token_pair varchar, amount_usd double, sold_usd double, cost_bps double
SELECT
  t.tx_hash,
  t.token_pair,
  t.amount_usd,
  t.token_sold_amount * p.price AS sold_usd,
  (t.token_sold_amount * p.price / t.amount_usd - 1) * 10000 AS cost_bps
FROM dex.trades t
JOIN prices.usd p
  ON p.blockchain = t.blockchain
  AND p.contract_address = t.token_sold_address
  AND p.minute = date_trunc('minute', t.block_time)
WHERE t.block_time > now() - interval '7' day
  AND t.amount_usd > 0
ORDER BY t.block_time DESC
LIMIT 200
