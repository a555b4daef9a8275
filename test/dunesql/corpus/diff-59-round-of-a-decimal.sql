-- round(x, d) of a decimal keeps its scale with one digit more (decimal(p + 1, s)), round(x) of
-- one has scale 0, as Trino's MathFunctions type them; DuckDB's round took the digits asked for
-- as the scale (round(1.235, 2) was a decimal(4,2)).
-- see: https://trino.io/docs/current/functions/math.html#round
-- rows: 1
-- columns: two_places decimal(5,3), whole decimal(2,0), negative decimal(2,0), tens decimal(6,2), share decimal(15,1)
-- result: [[1.240, 2, -3, 120.00, 33.3]]
SELECT round(1.235, 2) AS two_places,
  round(1.5) AS whole,
  round(-2.5) AS negative,
  round(123.45, -1) AS tens,
  round(100.0 * 1 / 3, 2) AS share
