import type { EvmChain } from '../../datasets/base-tables';

/**
 * The shape of the generated world: the time window, per-chain volumes at scale 1, the price model,
 * the Uniswap V3 pools and the activity mix. Everything else is derived from these and the seed.
 */

export const WINDOW_DAYS = 30;
export const WINDOW_SECONDS = WINDOW_DAYS * 86_400;
export const WINDOW_MINUTES = WINDOW_DAYS * 1_440;

/** The data window: start inclusive, end exclusive, as `YYYY-MM-DD HH:MM:SS` (UTC). */
export interface SampleWindow {
  start: string;
  end: string;
}

/**
 * The window ends where the build date begins (00:00 UTC): the WINDOW_DAYS full days before the
 * day the warehouse is built, so "the last 7 days" finds rows and no row lies in the future. It
 * depends on the build date only, never on the time of day, so the same build date, seed and scale
 * always give the same data.
 */
export function sampleWindow(buildDate: string): SampleWindow {
  const end = Date.parse(`${buildDate}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(buildDate) || Number.isNaN(end) || buildDate < EARLIEST_BUILD_DATE) {
    throw new Error(
      `buildDate must be a date like 2026-11-01, not before ${EARLIEST_BUILD_DATE}; got ${buildDate}`,
    );
  }
  const sql = (millis: number) => new Date(millis).toISOString().slice(0, 19).replace('T', ' ');
  return { start: sql(end - WINDOW_SECONDS * 1000), end: sql(end) };
}

/** Contracts that predate the window were deployed up to mid-2025, so the window must start after. */
export const CONTRACTS_DEPLOYED_BEFORE = '2025-06-01';
const EARLIEST_BUILD_DATE = '2025-08-01';

/** The UTC day of `now` (the default build date). */
export const utcDate = (now = new Date()): string => now.toISOString().slice(0, 10);

/** Externally owned accounts shared by the EVM chains (the same people use several chains). */
export const EOA_COUNT_AT_SCALE_1 = 60_000;
export const BTC_ADDRESS_COUNT_AT_SCALE_1 = 50_000;

export type TxKind = 'swap' | 'erc20' | 'approve' | 'native' | 'other';

export interface PoolConfig {
  tokenA: string;
  tokenB: string;
  /** Fee in hundredths of a bip. */
  fee: 100 | 500 | 3000 | 10000;
  /** Relative share of the chain's swaps. */
  weight: number;
  /** Pools created later in the window (as a fraction of it); core pools are created in its first minutes. */
  createdAt?: number;
}

export interface EvmChainConfig {
  chain: EvmChain;
  chainId: number;
  /** When the chain (or Uniswap V3 on it) launched: pre-window contracts are created after it. */
  genesis: string;
  /** Block number of the first block in the window (realistic heights for late 2026). */
  firstBlock: number;
  /** The sample is thinned: fewer, fuller blocks than the real chain (see README). */
  blocksAtScale1: number;
  txsAtScale1: number;
  /** Share of each transaction kind; the rest are plain contract calls. */
  mix: Record<Exclude<TxKind, 'other'>, number>;
  /** Median base fee in gwei and its log-normal spread. */
  baseFeeGwei: number;
  baseFeeSigma: number;
  /** Median priority fee in gwei. */
  priorityFeeGwei: number;
  blockGasLimit: number;
  /** Block fee recipients (builders / sequencer) with their share of blocks. */
  miners: { address: string; weight: number }[];
  /** Relative frequency of each token in plain ERC-20 transfers and approvals. */
  transferWeights: Record<string, number>;
  pools: PoolConfig[];
  /** Other protocols whose contracts receive generic calls (namespace, contract name). */
  dapps: [string, string][];
}

const COMMON_DAPPS: [string, string][] = [
  ['aave_v3', 'Pool'],
  ['gnosis_safe', 'GnosisSafeProxy'],
  ['layerzero', 'Endpoint'],
  ['stargate', 'Router'],
  ['oneinch', 'AggregationRouterV6'],
  ['opensea', 'Seaport'],
  ['chainlink', 'AccessControlledOffchainAggregator'],
  ['pendle', 'PendleRouterV4'],
  ['permit2', 'Permit2'],
  ['across', 'SpokePool'],
];

export const EVM_CHAIN_CONFIGS: readonly EvmChainConfig[] = [
  {
    chain: 'ethereum',
    chainId: 1,
    genesis: '2021-05-04 00:00:00',
    firstBlock: 26_300_000,
    blocksAtScale1: 43_200,
    txsAtScale1: 160_000,
    mix: { swap: 0.16, erc20: 0.3, approve: 0.07, native: 0.3 },
    baseFeeGwei: 4,
    baseFeeSigma: 0.55,
    priorityFeeGwei: 0.08,
    blockGasLimit: 45_000_000,
    miners: [
      { address: '0x95222290dd7278aa3ddd389cc1e1d165cc4bafe5', weight: 40 },
      { address: '0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97', weight: 35 },
      { address: '0x1f9090aae28b8a3dceadf281b0f12828e676c326', weight: 15 },
      { address: '0xdadb0d80178819f2319190d340ce9a924f783711', weight: 10 },
    ],
    transferWeights: { USDT: 30, USDC: 28, WETH: 14, DAI: 6, WBTC: 4, LINK: 5, UNI: 3, AAVE: 2, PEPE: 8 },
    pools: [
      { tokenA: 'USDC', tokenB: 'WETH', fee: 500, weight: 30 },
      { tokenA: 'WETH', tokenB: 'USDT', fee: 500, weight: 14 },
      { tokenA: 'USDC', tokenB: 'WETH', fee: 3000, weight: 7 },
      { tokenA: 'WBTC', tokenB: 'WETH', fee: 3000, weight: 8 },
      { tokenA: 'USDC', tokenB: 'USDT', fee: 100, weight: 8 },
      { tokenA: 'DAI', tokenB: 'USDC', fee: 100, weight: 5 },
      { tokenA: 'WBTC', tokenB: 'USDC', fee: 3000, weight: 4 },
      { tokenA: 'LINK', tokenB: 'WETH', fee: 3000, weight: 4 },
      { tokenA: 'UNI', tokenB: 'WETH', fee: 3000, weight: 3 },
      { tokenA: 'AAVE', tokenB: 'WETH', fee: 3000, weight: 2 },
      { tokenA: 'PEPE', tokenB: 'WETH', fee: 3000, weight: 9, createdAt: 0.35 },
    ],
    dapps: [...COMMON_DAPPS, ['lido', 'Lido'], ['curve', 'StableSwap'], ['eigenlayer', 'StrategyManager']],
  },
  {
    chain: 'base',
    chainId: 8453,
    genesis: '2023-07-15 00:00:00',
    firstBlock: 53_500_000,
    blocksAtScale1: 86_400,
    txsAtScale1: 130_000,
    mix: { swap: 0.25, erc20: 0.28, approve: 0.07, native: 0.15 },
    baseFeeGwei: 0.006,
    baseFeeSigma: 0.45,
    priorityFeeGwei: 0.001,
    blockGasLimit: 240_000_000,
    miners: [{ address: '0x4200000000000000000000000000000000000011', weight: 1 }],
    transferWeights: { USDC: 40, WETH: 18, USDbC: 4, DAI: 3, cbBTC: 5, cbETH: 4, AERO: 12, DEGEN: 14 },
    pools: [
      { tokenA: 'WETH', tokenB: 'USDC', fee: 500, weight: 34 },
      { tokenA: 'WETH', tokenB: 'USDC', fee: 3000, weight: 8 },
      { tokenA: 'cbBTC', tokenB: 'USDC', fee: 500, weight: 8 },
      { tokenA: 'cbBTC', tokenB: 'WETH', fee: 3000, weight: 5 },
      { tokenA: 'WETH', tokenB: 'cbETH', fee: 500, weight: 5 },
      { tokenA: 'USDC', tokenB: 'USDbC', fee: 100, weight: 5 },
      { tokenA: 'DAI', tokenB: 'USDC', fee: 100, weight: 3 },
      { tokenA: 'AERO', tokenB: 'WETH', fee: 3000, weight: 8 },
      { tokenA: 'DEGEN', tokenB: 'WETH', fee: 10000, weight: 10, createdAt: 0.5 },
    ],
    dapps: [
      ...COMMON_DAPPS,
      ['aerodrome', 'Router'],
      ['moonwell', 'MErc20Delegator'],
      ['zora', 'ZoraCreator1155'],
    ],
  },
  {
    chain: 'arbitrum',
    chainId: 42161,
    genesis: '2021-06-01 00:00:00',
    firstBlock: 522_000_000,
    blocksAtScale1: 86_400,
    txsAtScale1: 110_000,
    mix: { swap: 0.22, erc20: 0.3, approve: 0.08, native: 0.15 },
    baseFeeGwei: 0.01,
    baseFeeSigma: 0.2,
    priorityFeeGwei: 0,
    blockGasLimit: 32_000_000,
    miners: [{ address: '0xa4b000000000000000000073657175656e636572', weight: 1 }],
    transferWeights: { USDC: 32, 'USDC.e': 6, USDT: 18, WETH: 16, WBTC: 4, ARB: 12, DAI: 3, GMX: 4, LINK: 5 },
    pools: [
      { tokenA: 'WETH', tokenB: 'USDC', fee: 500, weight: 30 },
      { tokenA: 'WETH', tokenB: 'USDT', fee: 500, weight: 10 },
      { tokenA: 'WBTC', tokenB: 'WETH', fee: 500, weight: 8 },
      { tokenA: 'ARB', tokenB: 'WETH', fee: 500, weight: 10 },
      { tokenA: 'ARB', tokenB: 'USDC', fee: 500, weight: 5 },
      { tokenA: 'USDC', tokenB: 'USDT', fee: 100, weight: 8 },
      { tokenA: 'USDC.e', tokenB: 'USDC', fee: 100, weight: 4 },
      { tokenA: 'LINK', tokenB: 'WETH', fee: 3000, weight: 4 },
      { tokenA: 'DAI', tokenB: 'USDC', fee: 100, weight: 3 },
      { tokenA: 'GMX', tokenB: 'WETH', fee: 3000, weight: 6, createdAt: 0.42 },
    ],
    dapps: [
      ...COMMON_DAPPS,
      ['gmx', 'ExchangeRouter'],
      ['camelot', 'CamelotRouter'],
      ['radiant', 'LendingPool'],
    ],
  },
];

export const TICK_SPACING: Record<PoolConfig['fee'], number> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };

/**
 * Price model: a log random walk per minute for volatile assets (integer increments, so sums are exact
 * and independent of thread scheduling), small noise around 1 for stablecoins.
 */
export interface PriceAsset {
  asset: string;
  start: number;
  /** Daily volatility of log price; stablecoins use `stable` noise instead. */
  dailyVol: number;
  stable?: boolean;
}

export const PRICE_ASSETS: readonly PriceAsset[] = [
  { asset: 'ETH', start: 3000, dailyVol: 0.035 },
  { asset: 'BTC', start: 90_000, dailyVol: 0.025 },
  { asset: 'LINK', start: 15, dailyVol: 0.05 },
  { asset: 'UNI', start: 8, dailyVol: 0.055 },
  { asset: 'AAVE', start: 250, dailyVol: 0.05 },
  { asset: 'PEPE', start: 0.000012, dailyVol: 0.08 },
  { asset: 'AERO', start: 1.1, dailyVol: 0.07 },
  { asset: 'DEGEN', start: 0.004, dailyVol: 0.09 },
  { asset: 'ARB', start: 0.55, dailyVol: 0.05 },
  { asset: 'GMX', start: 22, dailyVol: 0.05 },
  { asset: 'USDC', start: 1, dailyVol: 0.0002, stable: true },
  { asset: 'USDT', start: 1, dailyVol: 0.0003, stable: true },
  { asset: 'DAI', start: 1, dailyVol: 0.0004, stable: true },
];

/** Which price series a token follows, and at what multiple (cbETH trades above ETH). */
export const TOKEN_PRICE_ASSET: Record<string, { asset: string; multiplier: number }> = {
  WETH: { asset: 'ETH', multiplier: 1 },
  cbETH: { asset: 'ETH', multiplier: 1.12 },
  WBTC: { asset: 'BTC', multiplier: 1 },
  cbBTC: { asset: 'BTC', multiplier: 1 },
  USDC: { asset: 'USDC', multiplier: 1 },
  'USDC.e': { asset: 'USDC', multiplier: 1 },
  USDbC: { asset: 'USDC', multiplier: 1 },
  USDT: { asset: 'USDT', multiplier: 1 },
  DAI: { asset: 'DAI', multiplier: 1 },
  LINK: { asset: 'LINK', multiplier: 1 },
  UNI: { asset: 'UNI', multiplier: 1 },
  AAVE: { asset: 'AAVE', multiplier: 1 },
  PEPE: { asset: 'PEPE', multiplier: 1 },
  AERO: { asset: 'AERO', multiplier: 1 },
  DEGEN: { asset: 'DEGEN', multiplier: 1 },
  ARB: { asset: 'ARB', multiplier: 1 },
  GMX: { asset: 'GMX', multiplier: 1 },
};

/** Native coins, listed in prices.usd with blockchain and contract_address NULL, as on Dune. */
export const NATIVE_PRICES: { symbol: string; asset: string; decimals: number }[] = [
  { symbol: 'ETH', asset: 'ETH', decimals: 18 },
  { symbol: 'BTC', asset: 'BTC', decimals: 8 },
];

export const BITCOIN = {
  firstHeight: 972_000,
  blocksAtScale1: 4_320,
  txsAtScale1: 80_000,
  subsidySats: 312_500_000,
  /** Mining pools' payout share. */
  minerWeights: [30, 20, 13, 11, 6, 6, 4, 3, 3, 2, 2],
} as const;
