import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSampleData } from '../../functions/local/sample-data/generate';
import { closeSampleDb, rows, type SampleDb, sampleDb } from './support';

const TABLES = [
  'ethereum.blocks',
  'ethereum.transactions',
  'base.logs',
  'erc20_arbitrum.evt_Transfer',
  'uniswap_v3_ethereum.Pair_evt_Swap',
  'dex.trades',
  'tokens.transfers',
  'prices.usd',
  'bitcoin.transactions',
];

/** Order-independent checksum of every row of each table. */
async function checksums(db: SampleDb): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of TABLES) {
    const [row] = await rows(
      db.connection,
      `SELECT count(*) AS n, sum(hash(t)::HUGEINT) AS h FROM ${table} t`,
    );
    result[table] = `${row?.n}:${row?.h}`;
  }
  return result;
}

let first: SampleDb;
let again: SampleDb;
let otherSeed: SampleDb;

beforeAll(async () => {
  first = await sampleDb({ scale: 0.005, seed: 42 });
  // Another thread count must not change anything (no random(), no order-dependent float sums).
  again = await sampleDb({ scale: 0.005, seed: 42, threads: 1 });
  otherSeed = await sampleDb({ scale: 0.005, seed: 7 });
});
afterAll(() => {
  closeSampleDb(first);
  closeSampleDb(again);
  closeSampleDb(otherSeed);
});

describe('sample data generation', () => {
  it('gives identical data for the same seed and scale, whatever the thread count', async () => {
    expect(await checksums(again)).toEqual(await checksums(first));
  });

  it('gives different data for another seed', async () => {
    const a = await checksums(first);
    const b = await checksums(otherSeed);
    for (const table of TABLES) expect(b[table], table).not.toBe(a[table]);
  });

  it('leaves no temporary tables or macros behind', async () => {
    const leftovers = await rows(
      first.connection,
      `SELECT table_name AS name FROM duckdb_tables() WHERE table_name LIKE '\\_sd\\_%' ESCAPE '\\'
       UNION ALL
       SELECT function_name FROM duckdb_functions() WHERE function_name LIKE '\\_sd\\_%' ESCAPE '\\'`,
    );
    expect(leftovers).toEqual([]);
  });

  it('plans at least 100k transactions per EVM chain at scale 1 and scales volumes down', () => {
    const full = planSampleData({ scale: 1 });
    for (const chain of full.evm)
      expect(chain.transactions, chain.config.chain).toBeGreaterThanOrEqual(100_000);
    const small = planSampleData({ scale: 0.1 });
    expect(small.evm[0]!.transactions).toBe(Math.round(full.evm[0]!.transactions * 0.1));
    expect(() => planSampleData({ scale: 0 })).toThrow();
    expect(() => planSampleData({ seed: 1.5 })).toThrow();
  });

  it('ends the window where the build date begins, 30 days long, whatever the time of day', () => {
    expect(planSampleData({ buildDate: '2026-12-15' }).window).toEqual({
      start: '2026-11-15 00:00:00',
      end: '2026-12-15 00:00:00',
    });
    expect(planSampleData({ buildDate: '2027-03-01' }).window.start).toBe('2027-01-30 00:00:00');
    const today = new Date().toISOString().slice(0, 10);
    expect(planSampleData().buildDate).toBe(today);
    expect(planSampleData().window.end).toBe(`${today} 00:00:00`);
    expect(() => planSampleData({ buildDate: '2026-13-01' })).toThrow(/buildDate must be a date/);
    expect(() => planSampleData({ buildDate: 'yesterday' })).toThrow(/buildDate must be a date/);
    expect(() => planSampleData({ buildDate: '2024-01-01' })).toThrow(/not before/);
  });
});
