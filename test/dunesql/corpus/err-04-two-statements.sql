-- One statement per query.
-- error: only one statement
SELECT 1; SELECT 2
