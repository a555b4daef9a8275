-- combinations refuses subsets of more than five elements, and results of more than 100,000
-- elements, as Trino does (the local engine would build them all and run out of memory).
-- error: combinations exceed max size
SELECT cardinality(combinations(sequence(1, 60), 4)) AS n
