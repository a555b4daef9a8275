-- Transfers where sender equals receiver or the zero address is involved (varbinary equality).
-- rows: 1
-- columns: self_transfers bigint, mints bigint, burns bigint
SELECT
  count_if("from" = "to") AS self_transfers,
  count_if("from" = 0x0000000000000000000000000000000000000000) AS mints,
  count_if("to" = 0x0000000000000000000000000000000000000000) AS burns
FROM tokens.transfers
