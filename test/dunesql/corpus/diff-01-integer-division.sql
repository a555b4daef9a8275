-- Integer division truncates toward zero; % keeps the dividend's sign; a double operand divides exactly.
-- rows: 1
-- columns: _col0 integer, _col1 integer, _col2 integer, _col3 integer, _col4 double
-- result: [[3, -3, 1, -1, 3.5]]
-- see: https://trino.io/docs/current/functions/math.html ("Division (integer division performs truncation)")
SELECT 7 / 2, -7 / 2, 7 % 3, -7 % 3, 7e0 / 2
