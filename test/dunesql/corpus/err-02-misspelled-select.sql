-- A misspelled keyword is a syntax error (not an alias expression).
-- error: syntax error
selec nothing
