-- A leaderboard with explorer links, as Dune dashboards write it: get_href around
-- get_chain_explorer_address of a varbinary address, per row, and the chain's explorer.
-- see: https://docs.dune.com/query-engine/Functions-and-operators/chain-utility-functions
-- rows: 1
-- columns: sender varchar, explorer varchar, tx_link varchar, evm boolean
-- result: [["<a href=\"https://etherscan.io/address/0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2\"target =\"_blank\">0xc02aaa…", "https://basescan.org", "https://arbiscan.io/tx/0xabcd", true]]
SELECT get_href(get_chain_explorer_address('ethereum', address),
    substr(cast(address AS varchar), 1, 8) || '…') AS sender,
  get_chain_explorer('base') AS explorer,
  get_chain_explorer_tx_hash('arbitrum', 0xabcd) AS tx_link,
  contains(all_evm_chains(), 'base') AS evm
FROM (VALUES 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2) AS t (address)
