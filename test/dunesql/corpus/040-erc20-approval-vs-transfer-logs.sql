-- Transfer vs Approval events from raw logs by topic0 (CASE on varbinary literals).
-- rows: 2..3
-- columns: event varchar, logs bigint
SELECT
  CASE topic0
    WHEN 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef THEN 'Transfer'
    WHEN 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925 THEN 'Approval'
    ELSE 'other'
  END AS event,
  count(*) AS logs
FROM ethereum.logs
GROUP BY 1
ORDER BY 2 DESC
