-- to_hex of varbinary encodes the bytes in upper case (Guava base16), not the hex of text; lower() for Dune-style 0x strings.
-- rows: 1
-- columns: hex varchar, dune_style varchar, from_column varchar
-- result: [["C02AAA39", "0xc02aaa39", "C02AAA39B223FE8D0A0E5C4F27EAD9083C756CC2"]]
-- see: https://trino.io/docs/current/functions/binary.html#to_hex
SELECT to_hex(0xc02aaa39) AS hex, '0x' || lower(to_hex(0xc02aaa39)) AS dune_style,
  (SELECT to_hex(contract_address) FROM tokens.erc20 WHERE blockchain = 'ethereum' AND symbol = 'WETH') AS from_column
