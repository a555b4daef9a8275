-- ngrams(array, n) and combinations(array, n), Trino's array functions, were missing locally
-- ("Scalar Function with name ngrams does not exist"). ngrams answers every run of n consecutive
-- elements (the whole array when it is shorter); combinations the n-element subsets by position,
-- in Trino's order (by the last position first: [1,2], [1,3], [2,3], [1,4], ...).
-- see: https://trino.io/docs/current/functions/array.html#ngrams
-- rows: 1
-- columns: pairs array(array(varchar)), longer array(array(varchar)), empty array(array(integer)), two array(array(integer)), three array(array(integer)), none array(array(integer)), zero array(array(integer))
-- result: [[[["foo", "bar"], ["bar", "baz"], ["baz", "foo"]], [["foo", "bar", "baz", "foo"]], [[]], [[1, 2], [1, 3], [2, 3], [1, 4], [2, 4], [3, 4]], [[1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 4]], [], [[]]]]
SELECT ngrams(array['foo', 'bar', 'baz', 'foo'], 2) AS pairs,
  ngrams(array['foo', 'bar', 'baz', 'foo'], 5) AS longer,
  ngrams(cast(array[] AS array(integer)), 2) AS empty,
  combinations(array[1, 2, 3, 4], 2) AS two,
  combinations(array[1, 2, 3, 4], 3) AS three,
  combinations(array[1, 2], 3) AS none,
  combinations(array[1, 2], 0) AS zero
