-- Conditionals: if(), coalesce, nullif, greatest, least, CASE with NULL.
-- rows: 1
-- columns: when_true varchar, first_non_null integer, nulled integer, biggest integer, smallest integer
-- result: [["yes", 2, null, 9, 1]]
SELECT if(1 < 2, 'yes', 'no') AS when_true, coalesce(NULL, 2, 3) AS first_non_null, nullif(5, 5) AS nulled,
  greatest(1, 9, 4) AS biggest, least(1, 9, 4) AS smallest
