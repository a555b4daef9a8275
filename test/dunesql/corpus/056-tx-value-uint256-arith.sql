-- uint256 arithmetic on raw values: exact sum, max, and value modulo 10^9 (integer ops stay exact).
-- rows: 1
-- columns: total_wei uint256, max_wei uint256, transfers bigint
SELECT sum(value) AS total_wei, max(value) AS max_wei, count(*) AS transfers
FROM ethereum.transactions
WHERE value > cast(0 AS uint256)
