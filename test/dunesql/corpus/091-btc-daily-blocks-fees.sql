-- Bitcoin blocks and fees per day (decimal sums stay exact decimals).
-- rows: 25..31
-- columns: day date, blocks bigint, fees_btc decimal(38,8), rewards_btc decimal(38,8)
SELECT date AS day, count(*) AS blocks, sum(total_fees) AS fees_btc, sum(total_reward) AS rewards_btc
FROM bitcoin.blocks
GROUP BY 1
ORDER BY 1
