import type { DuckDBConnection } from '@duckdb/node-api';
import { BASE_TABLES } from '../../datasets/base-tables';
import { BITCOIN_MACROS, BITCOIN_TEMP_TABLES, type BitcoinPlan, bitcoinStatements } from './bitcoin';
import {
  BITCOIN,
  BTC_ADDRESS_COUNT_AT_SCALE_1,
  EOA_COUNT_AT_SCALE_1,
  EVM_CHAIN_CONFIGS,
  type SampleWindow,
  sampleWindow,
  utcDate,
} from './config';
import { EVM_TEMP_TABLES, type EvmPlan, evmStatements } from './evm';
import { assetPriceStatements, nativePriceStatement } from './prices';
import { createTableStatement, DROP_MACROS, ident, macroStatements } from './sql';

export interface SampleDataOptions {
  /** Volume multiplier; 1 gives >= 100k transactions per EVM chain. */
  scale?: number;
  /** Same seed, scale and build date give identical data. */
  seed?: number;
  /**
   * UTC day the warehouse is built, `YYYY-MM-DD` (default: today). The data window is the 30 days
   * before it, so relative filters such as `now() - interval '7' day` find rows.
   */
  buildDate?: string;
  /** Called after each phase (prices, each chain) with its wall-clock duration. */
  onPhase?: (phase: string, millis: number) => void;
}

export const DEFAULT_SAMPLE_SEED = 42;

export interface SamplePlan {
  scale: number;
  seed: number;
  buildDate: string;
  window: SampleWindow;
  eoaCount: number;
  evm: EvmPlan[];
  bitcoin: BitcoinPlan;
}

const scaled = (atScale1: number, scale: number, minimum: number) =>
  Math.max(minimum, Math.round(atScale1 * scale));

export function planSampleData(options: SampleDataOptions = {}): SamplePlan {
  const scale = options.scale ?? 1;
  const seed = options.seed ?? DEFAULT_SAMPLE_SEED;
  if (!Number.isFinite(scale) || scale <= 0 || scale > 100) {
    throw new Error(`scale must be a number in (0, 100], got ${scale}`);
  }
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  const eoaCount = scaled(EOA_COUNT_AT_SCALE_1, scale, 300);
  const buildDate = options.buildDate ?? utcDate();
  const window = sampleWindow(buildDate);
  return {
    scale,
    seed,
    buildDate,
    window,
    eoaCount,
    evm: EVM_CHAIN_CONFIGS.map((config) => ({
      config,
      blocks: scaled(config.blocksAtScale1, scale, 100),
      transactions: scaled(config.txsAtScale1, scale, 200),
      eoaCount,
      windowStart: window.start,
    })),
    bitcoin: {
      blocks: scaled(BITCOIN.blocksAtScale1, scale, 24),
      transactions: scaled(BITCOIN.txsAtScale1, scale, 200),
      addressCount: scaled(BTC_ADDRESS_COUNT_AT_SCALE_1, scale, 300),
      windowStart: window.start,
    },
  };
}

/**
 * Creates every base table (schemas included) in `connection` and fills it with deterministic sample
 * onchain data. Existing base tables are replaced. Works on in-memory and file databases; the
 * generator's own temporary tables and macros are dropped before it returns.
 */
export async function generateSampleData(
  connection: DuckDBConnection,
  options: SampleDataOptions = {},
): Promise<SamplePlan> {
  const plan = planSampleData(options);
  const run = async (statements: readonly string[]) => {
    for (const sql of statements) {
      try {
        await connection.run(sql);
      } catch (error) {
        throw new Error(`sample data generation failed: ${(error as Error).message}\nin SQL:\n${sql}`, {
          cause: error,
        });
      }
    }
  };

  const phase = async (name: string, statements: readonly string[]) => {
    const started = performance.now();
    await run(statements);
    options.onPhase?.(name, performance.now() - started);
  };

  const schemas = [...new Set(BASE_TABLES.map((definition) => definition.schema))];
  try {
    await phase('schemas and tables', [
      ...macroStatements(plan.seed),
      ...schemas.map((schema) => `CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`),
      ...BASE_TABLES.map(createTableStatement),
    ]);
    await phase('prices and accounts', [
      ...assetPriceStatements(),
      nativePriceStatement(plan.window.start),
      `CREATE OR REPLACE TEMP TABLE _sd_eoa AS SELECT range::INTEGER AS idx, _sd_addr('eoa', range) AS address
       FROM range(${plan.eoaCount})`,
    ]);
    for (const evm of plan.evm) await phase(evm.config.chain, evmStatements(evm));
    await phase('bitcoin', bitcoinStatements(plan.bitcoin));
  } finally {
    const temps = ['_sd_ap', '_sd_eoa', ...EVM_TEMP_TABLES, ...BITCOIN_TEMP_TABLES];
    for (const table of temps) await connection.run(`DROP TABLE IF EXISTS temp.${table}`);
    for (const macro of [...BITCOIN_MACROS, ...DROP_MACROS])
      await connection.run(`DROP MACRO IF EXISTS temp.${macro}`);
  }
  return plan;
}
