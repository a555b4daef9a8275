-- Most called function selectors (first 4 bytes of calldata with bytearray_substring).
-- rows: 2..20
-- columns: selector varbinary, calls bigint
SELECT bytearray_substring(data, 1, 4) AS selector, count(*) AS calls
FROM ethereum.transactions
WHERE bytearray_length(data) >= 4
GROUP BY 1
ORDER BY calls DESC
LIMIT 20
