-- Postgres' :: cast is refused with CAST to write.
-- error: DuneSQL has no :: cast: write cast\(x as varchar\)
SELECT amount_usd::varchar AS amount FROM dex.trades LIMIT 1
