-- parse_duration knows the units ns, us, ms, s, m, h and d only, as Trino's.
-- error: Unknown time unit: years
SELECT parse_duration('5 years') AS d
