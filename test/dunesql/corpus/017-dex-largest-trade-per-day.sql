-- Largest trade of each day (row_number dedup pattern).
-- rows: 28..31
-- columns: block_date date, tx_hash varbinary, token_pair varchar, amount_usd double
SELECT block_date, tx_hash, token_pair, amount_usd
FROM (
  SELECT
    block_date, tx_hash, token_pair, amount_usd,
    row_number() OVER (PARTITION BY block_date ORDER BY amount_usd DESC) AS rn
  FROM dex.trades
) ranked
WHERE rn = 1
ORDER BY block_date
