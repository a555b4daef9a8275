-- Typed literals as Dune's spellbook writes them: `uint256 '0'` in a filter and a CASE, and
-- `decimal '…'` with the literal's own precision. Polyglot's parser reads neither; they are
-- rewritten to the casts they stand for before parsing.
-- see: https://trino.io/docs/current/language/types.html
-- rows: 1
-- columns: trades bigint, small bigint, fee decimal(4,4)
SELECT count(*) AS trades,
  count(CASE WHEN token_bought_amount_raw < uint256 '1000000000000000000' THEN 1 END) AS small,
  decimal '0.0030' AS fee
FROM dex.trades
WHERE token_bought_amount_raw > uint256 '0'
