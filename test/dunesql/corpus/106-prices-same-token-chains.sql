-- The same symbol priced on several chains: spread between chains at one minute.
-- rows: 1..10
-- columns: symbol varchar, chains bigint, spread double
SELECT symbol, count(DISTINCT blockchain) AS chains, max(price) - min(price) AS spread
FROM prices.usd
WHERE minute = date_trunc('hour', now() - interval '2' day) AND blockchain IS NOT NULL
GROUP BY 1
HAVING count(DISTINCT blockchain) > 1
ORDER BY 1
