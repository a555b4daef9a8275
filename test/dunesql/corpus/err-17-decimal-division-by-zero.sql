-- A decimal division by zero fails, as an integer one does (Trino: "Division by zero").
-- error: Division by zero
SELECT 1.0 / 0 AS q
