-- Input/output counts agree with cardinality() of the arrays.
-- rows: 1
-- columns: txs bigint, inputs_match bigint, outputs_match bigint
SELECT count(*) AS txs,
  count_if(cardinality(inputs) = input_count) AS inputs_match,
  count_if(cardinality(outputs) = output_count) AS outputs_match
FROM bitcoin.transactions
