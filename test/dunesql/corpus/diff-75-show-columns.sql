-- SHOW COLUMNS (and DESCRIBE) list a table's columns as Trino does (Column, Type, Extra, Comment),
-- the way analysts and agents explore a table before querying it. They were refused as "not a
-- query"; they run now, over information_schema.
-- see: https://trino.io/docs/current/sql/show-columns.html
-- rows: 2
-- columns: Column varchar, Type varchar, Extra varchar, Comment varchar
-- result: [["token_bought_symbol", "varchar", "", "Symbol of the token the taker received."], ["token_sold_symbol", "varchar", "", "Symbol of the token the taker paid."]]
SHOW COLUMNS FROM dex.trades LIKE 'token_%_symbol'
