-- Senders whose consecutive transactions skip nonces (lag over nonce per sender).
-- rows: 0..100
-- columns: sender varbinary, nonce bigint, previous_nonce bigint
SELECT sender, nonce, previous_nonce
FROM (
  SELECT "from" AS sender, nonce, lag(nonce) OVER (PARTITION BY "from" ORDER BY nonce) AS previous_nonce
  FROM base.transactions
) t
WHERE previous_nonce IS NOT NULL AND nonce - previous_nonce > 1
ORDER BY sender, nonce
LIMIT 100
