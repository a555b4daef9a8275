import { UnsupportedConstruct } from './errors';
import type { Rule, RuleSet } from './rules';

/**
 * Dune's chain utility functions (docs: "Chain Utility Functions"), which neither Trino nor DuckDB
 * has: SQL functions Dune defines over plain SQL (Spellbook's macros/public/get_*.sql), written here
 * as the same expressions for both engines. Only how a value becomes text differs per engine.
 */

/** `get_chain_explorer`: each chain's explorer; any other chain gets Etherscan, as Dune's does. */
const EXPLORERS: Record<string, string> = {
  ethereum: 'https://etherscan.io',
  optimism: 'https://optimistic.etherscan.io',
  polygon: 'https://polygonscan.com',
  arbitrum: 'https://arbiscan.io',
  avalanche_c: 'https://snowtrace.io',
  gnosis: 'https://gnosisscan.io',
  bnb: 'https://bscscan.com',
  solana: 'https://solscan.io',
  fantom: 'https://ftmscan.com',
  base: 'https://basescan.org',
  bitcoin: 'https://blockstream.info',
  celo: 'https://celoscan.io',
  goerli: 'https://goerli.basescan.org',
};

/** The address and transaction pages link Optimism's own explorer and zkSync's (Dune's tables). */
const PAGE_EXPLORERS: Record<string, string> = {
  ...EXPLORERS,
  optimism: 'https://explorer.optimism.io',
  zksync: 'https://explorer.zksync.io',
};

/** What `all_evm_chains()` lists. */
const EVM_CHAINS = [
  'ethereum',
  'optimism',
  'arbitrum',
  'avalanche_c',
  'polygon',
  'bnb',
  'gnosis',
  'fantom',
  'celo',
  'base',
  'zksync',
  'zora',
  'scroll',
];

const explorerOf = (chain: string, explorers: Record<string, string>) =>
  `CASE ${chain} ${Object.entries(explorers)
    .map(([name, url]) => `WHEN '${name}' THEN '${url}'`)
    .join(' ')} ELSE '${EXPLORERS.ethereum}' END`;

/** A rule for a call of exactly `arity` arguments; another count is refused with the signature. */
function fixedArity(name: string, signature: string, arity: number, template: string): Rule {
  return (args, context) => {
    if (args.length !== arity) {
      throw new UnsupportedConstruct(
        name,
        `${name} takes ${arity} argument${arity === 1 ? '' : 's'}: ${signature}.`,
      );
    }
    return context.template(template, args);
  };
}

/**
 * The rules, given how the target writes a value (varchar, or varbinary as `0x…` hex) as text:
 * `asText('__2')` is that SQL for the second argument.
 */
export function chainUtilityRules(asText: (value: string) => string): RuleSet {
  const page = (kind: string) => `${explorerOf('__1', PAGE_EXPLORERS)} || '/${kind}/' || ${asText('__2')}`;
  return {
    get_href: fixedArity(
      'get_href',
      'get_href(link, text)',
      2,
      `'<a href="' || __1 || '"target ="_blank">' || __2`,
    ),
    get_chain_explorer: fixedArity(
      'get_chain_explorer',
      'get_chain_explorer(chain)',
      1,
      explorerOf('__1', EXPLORERS),
    ),
    get_chain_explorer_address: fixedArity(
      'get_chain_explorer_address',
      'get_chain_explorer_address(chain, address)',
      2,
      page('address'),
    ),
    get_chain_explorer_tx_hash: fixedArity(
      'get_chain_explorer_tx_hash',
      'get_chain_explorer_tx_hash(chain, tx_hash)',
      2,
      page('tx'),
    ),
    all_evm_chains: fixedArity(
      'all_evm_chains',
      'all_evm_chains()',
      0,
      `ARRAY[${EVM_CHAINS.map((chain) => `'${chain}'`).join(', ')}]`,
    ),
  };
}
