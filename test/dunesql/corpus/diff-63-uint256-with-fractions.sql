-- DuneSQL computes a uint256 or int256 with a decimal of non-zero scale, a real or a double as
-- doubles; with an integer it stays a uint256 (division truncates). The local engine kept a
-- decimal(38, s) (which overflows past 10^(38 - s)), and a decimal-literal division of a raw
-- amount must not round: value / 1000000 truncates, value * 100.0 / total is a double.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/conversion
-- rows: 1
-- columns: scaled double, shifted double, share double, millions uint256, doubled uint256
-- result: [[10500000.0, 7000000.5, 33.333333333333336, "7", "14000000"]]
SELECT amount * 1.5 AS scaled,
  amount + 0.5 AS shifted,
  amount * 100.0 / total AS share,
  amount / 1000000 AS millions,
  amount * 2 AS doubled
FROM (VALUES (cast(7000000 AS uint256), cast(21000000 AS uint256))) AS t(amount, total)
