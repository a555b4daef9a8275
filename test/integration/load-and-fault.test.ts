import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import type { DuckDbQueryEngine } from '../../functions/local/engine/query-engine';
import { submitSql, waitUntilFinished } from '../support/executions';
import { HEAVY_SQL } from '../support/runaway-sql';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

/**
 * Heavy queries must never freeze the service (issue 12, finding 1). Bounds are generous on
 * purpose: this proves "never freezes", not a speed (test/bench/heavy-load.ts measures that).
 */
const LOAD_MS = 10_000;
const READ_LIMIT_MS = 5000;
const CANCEL_ANSWER_MS = 1000;
const STOP_MS = 2000;
/** The host process plus its engine processes; the heavy queries themselves need little memory. */
const RSS_BOUND_BYTES = 2 * 1024 ** 3;

function rssOf(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return pages * 4096;
  } catch {
    return 0; // not Linux, or the process just ended
  }
}

describe('six heavy queries from three accounts while a fourth reads', () => {
  let host: TestHost;
  let engine: DuckDbQueryEngine;
  const keys: string[] = [];

  beforeAll(async () => {
    // The local host's own engine settings (niced engine processes), not the test default.
    host = await startTestHost(undefined, { engine: { pool: { niceness: 10 } } });
    engine = host.services.engine as DuckDbQueryEngine;
    for (const handle of ['heavy_a', 'heavy_b', 'heavy_c', 'reader_d']) {
      const account = await createAccount(host.services.accounts, { handle });
      keys.push((await createApiKey(host.services.accounts, account.accountId)).apiKey);
    }
  });
  afterAll(() => host?.stop());

  it('answers every cheap read, cancels at once and stops the queries, within bounded memory', async () => {
    const reader = keys[3]!;
    const readerExecution = await submitSql(host, 'select 1 as x', {}, reader);
    await waitUntilFinished(host, readerExecution, 20_000, reader);

    const heavy: { id: string; key: string }[] = [];
    for (let round = 0; round < 2; round++) {
      for (const key of keys.slice(0, 3)) heavy.push({ id: await submitSql(host, HEAVY_SQL, {}, key), key });
    }
    // Every heavy query is in the engine: running (EXECUTING), or waiting for one of its processes
    // (still PENDING).
    for (const { id } of heavy) {
      const inEngine = Date.now() + 20_000;
      while (!engine.pool.holds(id) && Date.now() < inEngine) await new Promise((r) => setTimeout(r, 20));
    }
    // A query the engine still queues never reads EXECUTING.
    for (const { id, key } of heavy.filter(({ id }) => engine.pool.stateOf(id) === 'queued')) {
      const status = await bodyOf(
        await host.call(`/v1/execution/${id}/status?max_wait_ms=0`, { apiKey: key }),
      );
      expect(status.state).toBe('QUERY_STATE_PENDING');
    }
    const deadline = Date.now() + 20_000;
    while (engine.pool.load.running < Math.min(6, engine.pool.size) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(engine.pool.load).toMatchObject({ running: Math.min(6, engine.pool.size) });

    let peakRss = 0;
    const sampleRss = () => {
      const total = process.memoryUsage.rss() + engine.pool.pids.reduce((sum, pid) => sum + rssOf(pid), 0);
      peakRss = Math.max(peakRss, total);
    };
    const sampler = setInterval(sampleRss, 100);
    const latencies: number[] = [];
    const paths = ['/v1/queries?limit=1', `/v1/execution/${readerExecution}/status`];
    try {
      const until = Date.now() + LOAD_MS;
      for (let i = 0; Date.now() < until; i++) {
        const started = performance.now();
        const response = await host.call(paths[i % 2]!, {
          apiKey: reader,
          signal: AbortSignal.timeout(READ_LIMIT_MS),
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        expect(response.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      clearInterval(sampler);
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    console.info(
      `cheap reads under load: ${latencies.length}, p50 ${latencies[latencies.length >> 1]!.toFixed(1)} ms, ` +
        `p99 ${p99.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms; peak RSS ${(peakRss / 1024 ** 2).toFixed(0)} MiB`,
    );
    expect(latencies.at(-1)!).toBeLessThan(READ_LIMIT_MS);
    expect(peakRss).toBeLessThan(RSS_BOUND_BYTES);

    // Cancel all six at once.
    const cancelled = performance.now();
    const answers = await Promise.all(
      heavy.map(async ({ id, key }) => {
        const started = performance.now();
        const response = await host.call(`/v1/execution/${id}/cancel`, { method: 'POST', apiKey: key });
        expect(response.status).toBe(200);
        return performance.now() - started;
      }),
    );
    expect(Math.max(...answers)).toBeLessThan(CANCEL_ANSWER_MS);
    const stops = await Promise.all(
      heavy.map(async ({ id }) => {
        while (engine.pool.holds(id) && performance.now() - cancelled < 10_000) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return performance.now() - cancelled;
      }),
    );
    expect(Math.max(...stops)).toBeLessThan(STOP_MS);

    for (const { id, key } of heavy) {
      const status = await waitUntilFinished(host, id, 10_000, key);
      expect(status.state).toBe('QUERY_STATE_CANCELLED');
      expect(JSON.stringify(status)).not.toContain('States.Timeout');
    }
    // The engine is free again: the reader's next query runs at once.
    const after = await waitUntilFinished(
      host,
      await submitSql(host, 'select 2 as x', {}, reader),
      20_000,
      reader,
    );
    expect(after.state).toBe('QUERY_STATE_COMPLETED');
    const usage = await bodyOf(await host.call('/v1/usage', { method: 'POST', apiKey: keys[0] }));
    expect(usage.billing_periods[0].credits_used).toBeGreaterThan(0);
  }, 90_000);
});
