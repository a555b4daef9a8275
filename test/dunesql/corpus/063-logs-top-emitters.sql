-- Most active log emitters per chain with the share of logs carrying topic3.
-- rows: 10
-- columns: contract_address varbinary, logs bigint, with_topic3 bigint
SELECT contract_address, count(*) AS logs, count(topic3) AS with_topic3
FROM base.logs
GROUP BY 1
ORDER BY logs DESC, contract_address
LIMIT 10
