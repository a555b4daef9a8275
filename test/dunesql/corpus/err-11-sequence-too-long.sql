-- A sequence of more than 10,000 entries fails as in Trino (DuckDB built it): a daily calendar of
-- 40 years is 14,611 days.
-- see: https://github.com/trinodb/trino/blob/master/core/trino-main/src/main/java/io/trino/operator/scalar/SequenceFunction.java
-- error: result of sequence function must not have more than 10000 entries
SELECT cardinality(sequence(date '2000-01-01', date '2040-01-01')) AS days
