import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DuckDbQueryEngine } from '../../functions/local/engine/query-engine';
import type { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { parseDuckDbSize } from '../../functions/local/engine/sandbox-run';
import { createEngineFixture, type EngineFixture, engineOver, failureOf, runRequest } from './fixture';

/** Runs for minutes unless stopped. */
const RUNAWAY = 'SELECT sum(a.range * b.range) AS s FROM range(100000000) a, range(100000000) b';
/** These runs prove limits, not speed: give them time on a busy machine. */
const SLOW = { timeoutMs: 120_000 };
vi.setConfig({ testTimeout: 150_000 });

let fixture: EngineFixture;
let engine: DuckDbQueryEngine;
let store: DuckDbResultStore;

beforeAll(async () => {
  fixture = await createEngineFixture({ sampleData: false });
  // The engine processes' limits are proven with raw DuckDB SQL that abuses DuckDB directly
  // (strings beyond its memory limit, spilling sorts, test_all_types()); the dialect is not the point.
  ({ engine, store } = engineOver(fixture, { rawDuckDbForEngineTests: true }));
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
  await fixture?.cleanup();
});

function engineWith(options: Partial<ConstructorParameters<typeof DuckDbQueryEngine>[0]>) {
  return engineOver(fixture, { rawDuckDbForEngineTests: true, ...options }).engine;
}

async function leftovers(executionId: string): Promise<string[]> {
  const results = await readdir(fixture.resultsDir).catch(() => [] as string[]);
  const spill = await readdir(join(fixture.resultsDir, '.spill')).catch(() => [] as string[]);
  return [...results, ...spill].filter((name) => name.startsWith(executionId));
}

describe('memory the tier does not track', () => {
  // DuckDB builds the 2 GB string outside its memory_limit, growing ~60 MB/s here; a small tier
  // reaches its bound in seconds (the medium tier's 1GB + headroom would take about 20 s).
  it('stops `select length(repeat(...))` as resource_exhausted, not the host', async () => {
    const small = engineWith({ tiers: { medium: { threads: 1, memoryLimit: '100MB' } } });
    const hostBefore = process.memoryUsage.rss();
    const request = runRequest("select length(repeat('x', 2000000000)) as n", SLOW);
    const failure = await failureOf(small.run(request)).finally(() => small.close());
    expect(failure.type).toBe('resource_exhausted');
    expect(failure.message).toMatch(
      /^The query used more memory than the 100MB of the medium tier \(the engine process reached \d+ MiB\)/,
    );
    // The allocation happened in the engine process, which is gone; this process never held it.
    expect(process.memoryUsage.rss() - hostBefore).toBeLessThan(200 * 1024 ** 2);
    expect(await leftovers(request.executionId)).toEqual([]);
    expect(parseDuckDbSize('1GB') + 256 * 1024 ** 2).toBe(1_268_435_456); // the medium tier's bound
  });

  it('replaces a killed engine process: the next run works', async () => {
    const one = engineWith({ pool: { size: 1 } });
    try {
      const running = failureOf(one.run(runRequest(RUNAWAY, SLOW)));
      while (one.pool.load.running === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const [pid] = one.pool.pids;
      process.kill(pid!, 'SIGKILL');
      expect((await running).type).toBe('engine_unavailable');
      expect((await one.run(runRequest('select 42 as x'))).rowCount).toBe(1);
      expect(one.pool.pids).not.toContain(pid);
    } finally {
      await one.close();
    }
  });
});

describe('spilling', () => {
  const SORT = 'select range as i, md5(range::varchar) as h from range(1000000) order by h';

  it('spills to the run’s own directory when the query outgrows memory', async () => {
    const small = engineWith({ tiers: { medium: { threads: 1, memoryLimit: '48MB' } } });
    try {
      const request = runRequest(SORT, SLOW);
      const result = await small.run(request);
      expect(result.rowCount).toBe(1_000_000);
      expect(await leftovers(request.executionId)).toEqual([`${request.executionId}.parquet`]);
    } finally {
      await small.close();
    }
  });

  it('fails resource_exhausted with advice when the spill limit is reached', async () => {
    const small = engineWith({
      tiers: { medium: { threads: 1, memoryLimit: '48MB' } },
      maxSpillSize: '1MB',
    });
    try {
      const request = runRequest(SORT, SLOW);
      const failure = await failureOf(small.run(request));
      expect(failure.type).toBe('resource_exhausted');
      // DuckDB's own max_temp_directory_size usually stops it first; the engine's disk watch is the
      // backstop for operators that write past it. Either way the caller learns both limits.
      expect(failure.message).toMatch(
        /^(The query needed more than 1MB of disk to spill to, beyond the 48MB memory of the medium tier, and was stopped|Out of Memory Error: failed to offload data block .*The query needs more than the 48MB memory of the medium tier \(and 1MB of disk to spill to\)); filter or aggregate earlier/,
      );
      expect(await leftovers(request.executionId)).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

describe('result size', () => {
  it('fails a result over the tier’s row limit, saying how to shrink it', async () => {
    const limited = engineWith({
      tiers: { medium: { threads: 1, memoryLimit: '1GB', maxResultRows: 1000 } },
    });
    try {
      expect((await limited.run(runRequest('select range from range(1000)'))).rowCount).toBe(1000);
      const request = runRequest('select range from range(1001)');
      const failure = await failureOf(limited.run(request));
      expect(failure.type).toBe('resource_exhausted');
      expect(failure.message).toBe(
        'The result has more than 1,000 rows, the limit of the medium tier; aggregate (GROUP BY), filter to ' +
          'fewer rows, select fewer or narrower columns, or add a LIMIT.',
      );
      expect(await leftovers(request.executionId)).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('stops an endless result as soon as it passes the byte limit', async () => {
    const limited = engineWith({
      tiers: { medium: { threads: 1, memoryLimit: '1GB', maxResultBytes: 2 * 1024 ** 2 } },
    });
    try {
      const request = runRequest(
        'select md5(random()::varchar) as a, md5(random()::varchar) as b from range(2000000000)',
      );
      const started = Date.now();
      const failure = await failureOf(limited.run(request));
      expect(failure.type).toBe('resource_exhausted');
      expect(failure.message).toMatch(
        /^The result grew past 2 MiB \(the result size limit of the medium tier\)/,
      );
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(await leftovers(request.executionId)).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('enforces the account’s storage quota while the result is written', async () => {
    const full = await failureOf(
      engine.run(runRequest('select 1 as x', { storageBytesLeft: 0, storageBytesQuota: 1024 ** 3 })),
    );
    expect(full.type).toBe('resource_exhausted');
    expect(full.message).toMatch(/storage quota is used up.*POST \/v1\/usage/);
    const nearlyFull = await failureOf(
      engine.run(
        runRequest('select md5(range::varchar) as h from range(200000)', {
          storageBytesLeft: 100_000,
          storageBytesQuota: 1024 ** 3,
        }),
      ),
    );
    expect(nearlyFull.type).toBe('resource_exhausted');
    expect(nearlyFull.message).toMatch(
      /what is left of your 1 GiB result storage quota\) and was not stored; aggregate/,
    );
  });
});

describe('cancel and fairness', () => {
  it('stops a running query at once on cancel()', async () => {
    const request = runRequest(RUNAWAY);
    const running = failureOf(engine.run(request));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cancelled = Date.now();
    await engine.cancel({ ...request, engineRunId: request.executionId });
    expect((await running).type).toBe('cancelled');
    expect(Date.now() - cancelled).toBeLessThan(2000); // about 50 ms on a quiet machine
    expect(engine.pool.holds(request.executionId)).toBe(false);
  });

  it('gives a free slot to the account with the fewest running queries, not the longest queue', async () => {
    const one = engineWith({ pool: { size: 1 } });
    try {
      const startedAt = async (accountId: string, sql: string) => {
        const request = runRequest(`select epoch_us(get_current_timestamp()) as t, * from (${sql})`, {
          accountId,
        });
        await one.run(request);
        const page = await store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
        return Number(page.rows[0]!.t);
      };
      const busy = startedAt('a', 'select count(*) as c from range(3000) x, range(10000) y');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const a2 = startedAt('a', 'select 2 as n');
      const a3 = startedAt('a', 'select 3 as n');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const b1 = startedAt('b', 'select 1 as n');
      const [, second, third, other] = await Promise.all([busy, a2, a3, b1]);
      expect(other).toBeLessThan(second);
      expect(second).toBeLessThan(third);
    } finally {
      await one.close();
    }
  });
});

describe('odd values and odd SQL', () => {
  it('encodes every value test_all_types() produces for JSON and CSV', async () => {
    const request = runRequest('select * from test_all_types()');
    await engine.run(request);
    const page = await store.readPage({ executionId: request.executionId, limit: 10, offset: 0 });
    expect(page.rows).toHaveLength(3);
    expect(() => JSON.stringify(page.rows)).not.toThrow();
    const csv = await store.readCsv({ executionId: request.executionId, limit: 10, offset: 0 });
    expect(csv.rowCount).toBe(3);
    const [min, max] = page.rows;
    expect(min!.timestamp).toBe('-290308-12-22 00:00:00.000 UTC');
    expect(max!.timestamp).toBe('294247-01-10 04:00:54.775 UTC');
    expect(max!.timestamp_tz).toBe('294247-01-10 04:00:54.775 UTC');
  });

  it.each([
    ["select timestamp '276000-01-01 00:00:00' as t", '276000-01-01 00:00:00.000 UTC'],
    ["select timestamp '275000-01-01 00:00:00' as t", '275000-01-01 00:00:00.000 UTC'],
    ['select make_timestamp(-9223372036854775806) as t', '-290308-12-21 19:59:05.224 UTC'],
    ["select timestamp '1969-12-31 23:59:59.999' as t", '1969-12-31 23:59:59.999 UTC'],
    // Microseconds are cut to the millisecond before them, before 1970 as after.
    ["select timestamp '1969-12-31 23:59:59.9995' as t", '1969-12-31 23:59:59.999 UTC'],
    ["select timestamp '1970-01-01 00:00:00.0005' as t", '1970-01-01 00:00:00.000 UTC'],
  ])('writes %s in the documented format', async (sql, text) => {
    const request = runRequest(sql);
    await engine.run(request);
    const page = await store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
    expect(page.rows[0]!.t).toBe(text);
    const csv = await store.readCsv({ executionId: request.executionId, limit: 1, offset: 0 });
    expect(csv.csv).toContain(text);
  });

  it('says a NUL byte in the SQL is the problem', async () => {
    const failure = await failureOf(engine.run(runRequest("select 'a\0b' as x")));
    expect(failure.type).toBe('syntax_error');
    expect(failure.message).toBe('The query contains a NUL character (\\0) at line 1, column 10; remove it.');
    expect(failure.position).toEqual({ line: 1, column: 10 });
  });
});
