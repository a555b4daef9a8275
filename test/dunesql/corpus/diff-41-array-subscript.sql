-- An array subscript within the array is its element, as before (typed as the element, NULL for a
-- NULL index); past either end it fails as in Trino (err-07, err-08), where DuckDB answered NULL,
-- or counted back from the end for a negative subscript. element_at stays NULL past the end, on
-- both.
-- see: https://trino.io/docs/current/functions/array.html#subscript-operator
-- rows: 1
-- columns: second varchar, first_topic varbinary, last bigint, no_index varbinary, missing varchar
-- result: [["b", "0x01", 5, null, null]]
SELECT split('a,b', ',')[2] AS second,
  topics[1] AS first_topic,
  sequence(1, 5)[5] AS last,
  topics[cast(null AS bigint)] AS no_index,
  element_at(split('a,b', ','), 3) AS missing
FROM (SELECT array[0x01, 0x02] AS topics)
