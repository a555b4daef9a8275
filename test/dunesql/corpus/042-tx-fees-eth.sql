-- Daily gas fees paid in ETH and USD (gas_used * gas_price / 1e18, joined to the native ETH price).
-- rows: 6..8
-- columns: day timestamp(3), fees_eth double, fees_usd double
WITH eth_price AS (
  SELECT minute, price FROM prices.usd
  WHERE symbol = 'ETH' AND blockchain IS NULL AND minute > now() - interval '8' day
)
SELECT
  date_trunc('day', t.block_time) AS day,
  sum(t.gas_used * t.gas_price / 1e18) AS fees_eth,
  sum(t.gas_used * t.gas_price / 1e18 * p.price) AS fees_usd
FROM ethereum.transactions t
JOIN eth_price p ON p.minute = date_trunc('minute', t.block_time)
WHERE t.block_time > now() - interval '7' day
GROUP BY 1
ORDER BY 1
