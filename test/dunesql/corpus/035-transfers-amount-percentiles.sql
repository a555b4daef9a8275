-- Transfer size percentiles per symbol, several percentiles in one call (approx_percentile with an array).
-- rows: 10..26
-- columns: symbol varchar, percentiles array(double)
SELECT symbol, approx_percentile(amount_usd, ARRAY[0.25, 0.5, 0.75]) AS percentiles
FROM tokens.transfers
WHERE amount_usd IS NOT NULL
GROUP BY symbol
HAVING count(*) > 10
ORDER BY symbol
