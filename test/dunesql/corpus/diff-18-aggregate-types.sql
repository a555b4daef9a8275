-- Aggregate result types: count(*) bigint, sum(bigint) bigint, sum(integer) bigint, avg(integer) double, count_if bigint, approx_distinct bigint.
-- rows: 1
-- columns: n bigint, gas bigint, idx bigint, avg_idx double, failed bigint, senders bigint
-- see: https://trino.io/docs/current/functions/aggregate.html (count(*) -> bigint, sum(x) -> [same as input], avg(x) -> double)
SELECT count(*) AS n, sum(gas_used) AS gas, sum(index) AS idx, avg(index) AS avg_idx,
  count_if(NOT success) AS failed, approx_distinct("from") AS senders
FROM ethereum.transactions
