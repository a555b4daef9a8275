-- Price coverage: share of transfers with a USD price (count of a nullable column vs count(*)).
-- rows: 3
-- columns: blockchain varchar, transfers bigint, priced bigint, coverage double
SELECT
  blockchain,
  count(*) AS transfers,
  count(price_usd) AS priced,
  cast(count(price_usd) AS double) / count(*) AS coverage
FROM tokens.transfers
GROUP BY 1
ORDER BY 1
