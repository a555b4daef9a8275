-- Calls per known contract namespace (join transactions to contracts on the varbinary address).
-- rows: 2..20
-- columns: namespace varchar, name varchar, calls bigint, callers bigint
SELECT c.namespace, c.name, count(*) AS calls, count(DISTINCT t."from") AS callers
FROM arbitrum.transactions t
JOIN arbitrum.contracts c ON c.address = t."to"
GROUP BY 1, 2
ORDER BY calls DESC
LIMIT 20
