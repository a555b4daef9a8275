-- Exact raw amounts: uint256 sums of bought amounts per token on Base.
-- rows: 3..8
-- columns: token_bought_symbol varchar, raw_bought uint256, bought double
SELECT
  token_bought_symbol,
  sum(token_bought_amount_raw) AS raw_bought,
  sum(token_bought_amount) AS bought
FROM dex.trades
WHERE blockchain = 'base'
GROUP BY 1
ORDER BY 1
