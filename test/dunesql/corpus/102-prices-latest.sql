-- Latest price of every token per chain (max minute per token, then join back). Two days back:
-- the sample data ends at 00:00 UTC today, so late in the day "the last day" holds minutes only.
-- rows: 26
-- columns: blockchain varchar, symbol varchar, price double, minute timestamp(3)
WITH latest AS (
  SELECT blockchain, contract_address, max(minute) AS minute
  FROM prices.usd
  WHERE minute > now() - interval '2' day AND contract_address IS NOT NULL
  GROUP BY 1, 2
)
SELECT p.blockchain, p.symbol, p.price, p.minute
FROM prices.usd p
JOIN latest l ON l.blockchain = p.blockchain AND l.contract_address = p.contract_address AND l.minute = p.minute
ORDER BY 1, 2
