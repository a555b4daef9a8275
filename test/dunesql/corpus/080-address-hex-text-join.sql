-- Joining on hex text: lower('0x' || to_hex(address)) against a varchar list (legacy dashboards).
-- rows: 1
-- columns: symbol varchar
-- result: [["WETH"]]
SELECT symbol
FROM tokens.erc20
WHERE blockchain = 'ethereum'
  AND lower('0x' || to_hex(contract_address)) IN ('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2')
