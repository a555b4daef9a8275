-- Most bought tokens by distinct buyers (group by symbol with HAVING).
-- rows: 5..30
-- columns: token_bought_symbol varchar, buyers bigint, volume_usd double
SELECT
  token_bought_symbol,
  count(DISTINCT taker) AS buyers,
  sum(amount_usd) AS volume_usd
FROM dex.trades
WHERE block_time > now() - interval '30' day
GROUP BY 1
HAVING count(*) >= 5
ORDER BY buyers DESC, volume_usd DESC
