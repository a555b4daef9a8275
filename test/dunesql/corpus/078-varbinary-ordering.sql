-- Varbinary sorts bytewise: the smallest and largest token addresses on Ethereum.
-- rows: 1
-- columns: lowest varbinary, highest varbinary
-- result: [["0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", "0xdac17f958d2ee523a2206206994597c13d831ec7"]]
SELECT min(contract_address) AS lowest, max(contract_address) AS highest
FROM tokens.erc20
WHERE blockchain = 'ethereum'
