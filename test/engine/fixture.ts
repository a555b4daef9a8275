import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect } from 'vitest';
import { QueryFailure } from '../../functions/core/engine';
import {
  DuckDbQueryEngine,
  type DuckDbQueryEngineOptions,
  type EngineRunRequest,
} from '../../functions/local/engine/query-engine';
import { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { generateSampleData } from '../../functions/local/sample-data/generate';

export interface EngineFixture {
  dir: string;
  warehousePath: string;
  resultsDir: string;
  cleanup(): Promise<void>;
}

/**
 * A temporary warehouse and results directory. `sampleData` fills the warehouse with the generated
 * onchain sample (small scale); otherwise it holds one small `dex.trades` table, enough for tests
 * that only need something to read.
 */
export async function createEngineFixture(options: { sampleData: boolean }): Promise<EngineFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'engine-test-'));
  const warehousePath = join(dir, 'warehouse.duckdb');
  const instance = await DuckDBInstance.create(warehousePath);
  try {
    const connection = await instance.connect();
    if (options.sampleData) {
      await generateSampleData(connection, { scale: 0.01, seed: 7 });
    } else {
      await connection.run(`
        CREATE SCHEMA dex;
        CREATE TABLE dex.trades AS
          SELECT TIMESTAMP '2024-01-01' + INTERVAL (range) MINUTE AS block_time,
                 ['uniswap', 'curve', 'balancer'][range % 3 + 1] AS project,
                 range * 1.5 AS amount_usd
          FROM range(1000)`);
    }
    await connection.run('CHECKPOINT');
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
  return {
    dir,
    warehousePath,
    resultsDir: join(dir, 'results'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

let counter = 0;
/** A unique execution id per call (ULID-like alphabet). */
export function nextExecutionId(prefix = 'exec'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export function runRequest(sql: string, overrides: Partial<EngineRunRequest> = {}): EngineRunRequest {
  return {
    executionId: nextExecutionId(),
    accountId: 'account-1',
    sql,
    tier: 'medium',
    timeoutMs: 20_000,
    ...overrides,
  };
}

/** The QueryFailure a run rejected with (fails the test if it resolved or threw something else). */
export async function failureOf(promise: Promise<unknown>): Promise<QueryFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(QueryFailure);
    return error as QueryFailure;
  }
  throw new Error('expected the run to fail with a QueryFailure');
}

/** An engine over the fixture's warehouse, and a result store over the results it writes. */
export function engineOver(fixture: EngineFixture, options: Partial<DuckDbQueryEngineOptions> = {}) {
  return {
    engine: new DuckDbQueryEngine({
      warehousePath: fixture.warehousePath,
      resultsDir: fixture.resultsDir,
      ...options,
    }),
    store: new DuckDbResultStore({ resultsDir: fixture.resultsDir }),
  };
}

/**
 * An engine and result store over a fixture without sample data, set up before the file's tests
 * and closed after them: read its fields inside the tests.
 */
export function engineForTheseTests(options: Partial<DuckDbQueryEngineOptions> = {}) {
  const setup = {} as { fixture: EngineFixture; engine: DuckDbQueryEngine; store: DuckDbResultStore };
  beforeAll(async () => {
    setup.fixture = await createEngineFixture({ sampleData: false });
    Object.assign(setup, engineOver(setup.fixture, options));
  });
  afterAll(async () => {
    await setup.engine?.close();
    await setup.store?.close();
    await setup.fixture?.cleanup();
  });
  return setup as Readonly<typeof setup>;
}

/**
 * An engine with a single engine process (every run lands where the previous one left its
 * sandbox) over a fixture without sample data: set up before the file's tests, closed after them.
 * `run` runs SQL and reads its first rows.
 */
export function oneProcessEngine(options: Partial<DuckDbQueryEngineOptions> = {}) {
  const setup = engineForTheseTests({ ...options, pool: { size: 1 } });
  return {
    get fixture() {
      return setup.fixture;
    },
    get engine() {
      return setup.engine;
    },
    async run(sql: string, overrides: Partial<EngineRunRequest> = {}, limit = 10) {
      const request = runRequest(sql, overrides);
      const result = await setup.engine.run(request);
      const page = await setup.store.readPage({ executionId: request.executionId, limit, offset: 0 });
      return { columns: result.columns, rows: page.rows };
    },
  };
}
