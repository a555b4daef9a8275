-- WETH bought vs sold on Ethereum per day, filtered by a 0x address literal.
-- rows: 20..31
-- columns: block_date date, weth_bought double, weth_sold double, net_weth double
SELECT
  block_date,
  sum(CASE WHEN token_bought_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2 THEN token_bought_amount ELSE 0 END) AS weth_bought,
  sum(CASE WHEN token_sold_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2 THEN token_sold_amount ELSE 0 END) AS weth_sold,
  sum(CASE WHEN token_bought_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2 THEN token_bought_amount ELSE 0 END)
    - sum(CASE WHEN token_sold_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2 THEN token_sold_amount ELSE 0 END) AS net_weth
FROM dex.trades
WHERE blockchain = 'ethereum'
  AND (token_bought_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2
       OR token_sold_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2)
GROUP BY block_date
ORDER BY block_date
