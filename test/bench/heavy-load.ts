/**
 * (g) Cheap reads while heavy queries run: does engine work starve the request path?
 *
 * Four accounts on one local host. First the idle figure: account D reads
 * (`GET /v1/queries?limit=1` and the status of a finished execution, alternating, one at a time)
 * for IDLE_SECONDS. Then accounts A, B and C submit two heavy queries each (a cross join that runs
 * until it is stopped) and D keeps reading for LOAD_SECONDS. Then every heavy query is cancelled;
 * reported are the time the cancel call takes to answer and the time until the engine has really
 * stopped the query (the runner records the engine time of a cancelled run once the engine let go).
 *
 *   npx tsx test/bench/heavy-load.ts [--scale N]
 */
import { readFileSync } from 'node:fs';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import type { DuckDbQueryEngine } from '../../functions/local/engine/query-engine';
import { HEAVY_SQL } from '../support/runaway-sql';
import {
  type BenchHost,
  type Figure,
  type Json,
  median,
  mib,
  ms,
  percentile,
  ratio,
  runBench,
  say,
  sleep,
  submitSql,
  waitFinished,
} from './support';

const IDLE_SECONDS = 5;
const LOAD_SECONDS = 20;
const HEAVY_QUERIES_PER_ACCOUNT = 2;
/** A single read gives up after this long (counted as a failed read, the figure says so). */
const READ_TIMEOUT_MS = 30_000;

interface Reader {
  latencies: number[];
  failures: string[];
}

async function timedFetch(url: string, init: RequestInit): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** Reads as account `key` one at a time until `until`, recording each latency. */
async function readUntil(bench: BenchHost, key: string, executionId: string, until: number): Promise<Reader> {
  const reader: Reader = { latencies: [], failures: [] };
  const paths = ['/v1/queries?limit=1', `/v1/execution/${executionId}/status`];
  for (let i = 0; performance.now() < until; i++) {
    const path = paths[i % paths.length]!;
    try {
      const { ms: took, status } = await timedFetch(`${bench.host.baseUrl}${path}`, {
        headers: { 'x-service-api-key': key },
      });
      reader.latencies.push(took);
      if (status !== 200) reader.failures.push(`${path} → ${status}`);
    } catch (error) {
      reader.latencies.push(READ_TIMEOUT_MS);
      reader.failures.push(`${path} → ${(error as Error).name}`);
    }
    await sleep(20);
  }
  return reader;
}

async function newAccount(bench: BenchHost, handle: string): Promise<string> {
  const account = await createAccount(bench.host.services.accounts, { handle });
  return (await createApiKey(bench.host.services.accounts, account.accountId)).apiKey;
}

async function post(bench: BenchHost, key: string, path: string, json?: unknown): Promise<Json> {
  const response = await fetch(`${bench.host.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} → ${response.status}: ${text}`);
  return JSON.parse(text);
}

function summary(latencies: readonly number[]): string {
  return `${ms(median(latencies))} / ${ms(percentile(latencies, 99))} / ${ms(Math.max(...latencies))}`;
}

await runBench('heavy-load', async (bench) => {
  const { services } = bench.host;
  const reader = await newAccount(bench, 'bench_reader');
  const heavyKeys = await Promise.all(['bench_a', 'bench_b', 'bench_c'].map((h) => newAccount(bench, h)));
  // A finished execution of the reader's, whose status it polls.
  const readerExecution = (await post(bench, reader, '/v1/sql/execute', { sql: 'select 1 as x' }))
    .execution_id as string;
  await waitFinished({ ...bench, api: (path, init) => getAs(bench, reader, path, init) }, readerExecution);
  await submitSql(bench, 'select 1'); // warms the engine path once

  // The host process, plus its engine processes where the engine runs queries in child processes.
  const enginePids = () => (services.engine as Partial<DuckDbQueryEngine>).pool?.pids ?? [];
  let peakRss = 0;
  let peakEngineRss = 0;
  const rssSampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    peakEngineRss = Math.max(
      peakEngineRss,
      enginePids().reduce((sum, pid) => sum + rssOf(pid), 0),
    );
  }, 100);

  say(`idle: reading for ${IDLE_SECONDS} s`);
  const idle = await readUntil(bench, reader, readerExecution, performance.now() + IDLE_SECONDS * 1000);

  say(
    `load: ${heavyKeys.length * HEAVY_QUERIES_PER_ACCOUNT} heavy queries from ${heavyKeys.length} accounts`,
  );
  const heavy: { key: string; id: string }[] = [];
  for (let round = 0; round < HEAVY_QUERIES_PER_ACCOUNT; round++) {
    for (const key of heavyKeys) {
      heavy.push({ key, id: (await post(bench, key, '/v1/sql/execute', { sql: HEAVY_SQL })).execution_id });
    }
  }
  const loaded = await readUntil(bench, reader, readerExecution, performance.now() + LOAD_SECONDS * 1000);
  const states = await Promise.all(heavy.map(async ({ id }) => (await services.executions.get(id))?.state));
  say(`heavy query states before cancel: ${states.join(', ')}`);

  // Cancel all at once; time each answer and the engine's stop.
  const cancelled = performance.now();
  const answers = await Promise.all(
    heavy.map(async ({ key, id }) => {
      const started = performance.now();
      await post(bench, key, `/v1/execution/${id}/cancel`);
      return performance.now() - started;
    }),
  );
  const stops = await Promise.all(
    heavy.map(async ({ id }) => {
      for (;;) {
        const execution = await services.executions.get(id);
        if (execution?.engineMillis !== undefined || execution?.state === 'QUERY_STATE_FAILED')
          return performance.now() - cancelled;
        if (performance.now() - cancelled > 120_000) return Number.POSITIVE_INFINITY;
        await sleep(20);
      }
    }),
  );
  clearInterval(rssSampler);
  const failures = [...idle.failures, ...loaded.failures];
  if (failures.length) say(`failed reads: ${failures.slice(0, 10).join('; ')}`);
  const timeouts = (
    await Promise.all(heavy.map(async ({ id }) => (await services.executions.get(id))?.error?.message ?? ''))
  ).filter((message) => message.includes('States.Timeout')).length;

  const bench_ = '(g) heavy load';
  return [
    {
      bench: bench_,
      measure: `cheap read p50 / p99 / max, idle (${idle.latencies.length} reads)`,
      value: summary(idle.latencies),
    },
    {
      bench: bench_,
      measure: `cheap read p50 / p99 / max, 6 heavy queries running (${loaded.latencies.length} reads, ${loaded.failures.length} failed)`,
      value: summary(loaded.latencies),
      baseline: ms(percentile(idle.latencies, 99)),
      ratio: ratio(percentile(loaded.latencies, 99), percentile(idle.latencies, 99)),
    },
    { bench: bench_, measure: 'cancel answered, max of 6', value: ms(Math.max(...answers)) },
    { bench: bench_, measure: 'cancel → engine stopped, max of 6', value: ms(Math.max(...stops)) },
    { bench: bench_, measure: 'executions failed States.Timeout', value: String(timeouts) },
    { bench: bench_, measure: 'peak RSS of the host process', value: mib(peakRss) },
    { bench: bench_, measure: 'peak RSS of the engine processes, summed', value: mib(peakEngineRss) },
  ] satisfies Figure[];
});

function rssOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return 0; // not Linux, or the process just ended
  }
}

function getAs(bench: BenchHost, key: string, path: string, init: { method?: string; json?: unknown } = {}) {
  return fetch(`${bench.host.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-service-api-key': key },
  }).then((r) => r.json() as Promise<Json>);
}
