-- Math: round with digits, floor, ceil, truncate, power, sqrt, log10, mod, abs, sign.
-- rows: 1
-- columns: r double, f double, c double, t double, p double, s double, l double, m integer, a integer, sg integer
-- result: [[3.14, 3, 4, -3, 1024, 3, 2, 2, 5, -1]]
SELECT round(3.14159e0, 2) AS r, floor(3.7e0) AS f, ceil(3.2e0) AS c, truncate(-3.7e0) AS t,
  power(2, 10) AS p, sqrt(9) AS s, log10(100) AS l, mod(17, 5) AS m, abs(-5) AS a, sign(-5) AS sg
