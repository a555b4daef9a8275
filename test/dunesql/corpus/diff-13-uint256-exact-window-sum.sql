-- A windowed (running) sum of uint256 is exact too.
-- rows: 2
-- columns: i integer, running uint256
-- result: [[1, "340282366920938463463374607431768211450"], [2, "340282366920938463463374607431768211453"]]
SELECT i, sum(cast(x AS uint256)) OVER (ORDER BY i) AS running
FROM (VALUES (1, '340282366920938463463374607431768211450'), (2, '3')) AS t (i, x)
ORDER BY i
