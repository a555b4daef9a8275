-- A share over a scalar subquery (`count(*) * 100.0 / (SELECT count(*) FROM …)`) is a decimal
-- division in Trino, as it is over a column: the larger scale, rounded half away from zero. The
-- local engine did not type the subquery and divided in double precision (66.666…, not 66.7).
-- see: https://trino.io/docs/current/functions/decimal.html
-- rows: 2
-- columns: kind varchar, share decimal(23,1), of_total decimal(38,2)
-- result: [["a", 66.7, 0.83], ["b", 33.3, 0.17]]
SELECT kind,
  count(*) * 100.0 / (SELECT count(*) FROM (VALUES 1, 2, 3) AS t(x)) AS share,
  sum(amount) / (SELECT sum(amount) FROM (VALUES 1.50, 2.25, 0.75) AS t(amount)) AS of_total
FROM (VALUES ('a', 1.50), ('a', 2.25), ('b', 0.75)) AS t(kind, amount)
GROUP BY kind
ORDER BY kind
