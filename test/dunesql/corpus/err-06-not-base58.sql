-- Text that is not Base58 (0, O, I and l are not in the alphabet) fails the query with a message
-- that says so, as a built-in function's error does.
-- error: is not Base58
SELECT from_base58('0OIl') AS decoded
