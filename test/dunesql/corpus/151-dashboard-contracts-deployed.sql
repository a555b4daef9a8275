-- Contracts deployed per namespace and whether they came from a factory (boolean columns).
-- rows: 3..20
-- columns: namespace varchar, contracts bigint, from_factory bigint
SELECT namespace, count(*) AS contracts, count_if(dynamic) AS from_factory
FROM base.contracts
GROUP BY 1
ORDER BY contracts DESC, namespace
