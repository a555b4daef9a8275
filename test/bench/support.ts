/**
 * Shared plumbing of the execution benchmarks: argument parsing, a local host on a fresh data dir
 * over a cached sample warehouse, HTTP helpers, statistics and the figures each script reports.
 * Benchmarks print numbers; they never assert on timings and are not part of `npm test`.
 */
import { link, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalHost } from '../../functions/local/host';

export interface BenchArgs {
  scale: number;
  /** Where run-all wants the figures as JSON (set by run-all, optional otherwise). */
  summaryFile?: string;
}

export function parseArgs(argv = process.argv.slice(2)): BenchArgs {
  const args: BenchArgs = { scale: 1 };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = argv[i + 1];
    if (name === '--scale' && value !== undefined) {
      args.scale = Number(value);
      i++;
    } else if (name === '--summary-file' && value !== undefined) {
      args.summaryFile = value;
      i++;
    } else {
      throw new Error(`Unknown argument ${JSON.stringify(name)}; use --scale N.`);
    }
  }
  if (!Number.isFinite(args.scale) || args.scale <= 0) throw new Error('--scale must be a positive number');
  return args;
}

/** Quiet logs before the service modules (and their Powertools logger) are loaded. */
function silenceServiceLogs(): void {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  process.env.POWERTOOLS_DEV ??= 'false';
}

/** The reusable warehouse of a scale, built on first use: `<tmpdir>/onchain-bench-scale-<N>`. */
export function warehouseCacheDir(scale: number): string {
  return join(tmpdir(), `onchain-bench-scale-${scale}`);
}

export interface BenchHost {
  host: LocalHost;
  dataDir: string;
  /** fetch with the dev API key; throws on a non-2xx answer, returns the parsed JSON body. */
  api(path: string, init?: { method?: string; json?: unknown }): Promise<Json>;
  stop(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: benchmark code reads arbitrary JSON response bodies
export type Json = any;

const BENCH_REQUESTS_PER_MINUTE = 1_000_000_000;

/**
 * Starts the real local host in this process on a fresh temporary data dir whose warehouse files
 * are hard links to (or copies of) the cached warehouse, so no run rebuilds data and every run
 * starts with an empty DynamoDB store and results directory.
 */
export async function startBenchHost(
  scale: number,
  log: (message: string) => void = say,
): Promise<BenchHost> {
  silenceServiceLogs();
  const { ensureWarehouse } = await import('../../functions/local/warehouse');
  const { startLocalHost } = await import('../../functions/local/host');
  const cache = warehouseCacheDir(scale);
  await mkdir(cache, { recursive: true });
  const built = await ensureWarehouse({ dataDir: cache, scale, log });
  if (built.generated) log(`Cached the scale-${scale} warehouse in ${cache}.`);
  const dataDir = await mkdtemp(join(tmpdir(), 'onchain-bench-run-'));
  for (const file of ['warehouse.duckdb', 'warehouse.json']) {
    await linkOrCopy(join(cache, file), join(dataDir, file));
  }
  const host = await startLocalHost({
    dataDir,
    port: 0,
    scale,
    waitMillis: 20,
    // The benchmarks send far more than an account's default budget per minute: every request is
    // still counted (its cost is on the measured path), none is refused.
    execution: { rateLimits: { read: BENCH_REQUESTS_PER_MINUTE, write: BENCH_REQUESTS_PER_MINUTE } },
  });
  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const response = await fetch(`${host.baseUrl}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: { 'x-service-api-key': host.apiKey, 'content-type': 'application/json' },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path} → ${response.status}: ${text}`);
    return JSON.parse(text) as Json;
  };
  return {
    host,
    dataDir,
    api,
    async stop() {
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    const { copyFile } = await import('node:fs/promises');
    await copyFile(from, to);
  }
}

/** POST /v1/sql/execute → execution id. */
export async function submitSql(bench: BenchHost, sql: string): Promise<string> {
  const body = await bench.api('/v1/sql/execute', { json: { sql } });
  return body.execution_id as string;
}

/** Polls the status endpoint every `everyMs` until the execution finished; fails past `timeoutMs`. */
export async function waitFinished(
  bench: BenchHost,
  executionId: string,
  options: { everyMs?: number; timeoutMs?: number } = {},
): Promise<{ status: Json; polls: number }> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (let polls = 1; ; polls++) {
    const status = await bench.api(`/v1/execution/${executionId}/status`);
    if (status.is_execution_finished === true) {
      if (status.state !== 'QUERY_STATE_COMPLETED') {
        throw new Error(`execution ${executionId} ended ${status.state}: ${JSON.stringify(status.error)}`);
      }
      return { status, polls };
    }
    if (Date.now() > deadline)
      throw new Error(`execution ${executionId} still ${status.state} after timeout`);
    await sleep(options.everyMs ?? 10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- statistics ----

/** Nearest-rank percentile (p in 0..100) of the values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

// ---- reporting ----

export function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

export const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}×`;
export const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** One line of the summary table. */
export interface Figure {
  bench: string;
  measure: string;
  value: string;
  baseline?: string;
  ratio?: string;
}

/** Prints a table of figures (also used by run-all for the whole summary). */
export function printTable(figures: readonly Figure[], extraColumns: Record<string, string>[] = []): void {
  const rows = figures.map((f, i) => ({
    bench: f.bench,
    measure: f.measure,
    value: f.value,
    baseline: f.baseline ?? '',
    ratio: f.ratio ?? '',
    ...extraColumns[i],
  }));
  if (rows.length === 0) return;
  const headers = Object.keys(rows[0]!);
  const widths = headers.map((h) =>
    Math.max(h.length, ...rows.map((r) => String((r as Record<string, string>)[h] ?? '').length)),
  );
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  say(line(headers));
  say(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) say(line(headers.map((h) => String((row as Record<string, string>)[h] ?? ''))));
}

/** Runs one benchmark script: host up, body, host down; prints its figures and hands them to run-all. */
export async function runBench(
  name: string,
  body: (bench: BenchHost, args: BenchArgs) => Promise<Figure[]>,
  /** Command-line arguments (a script that takes its own flags passes what is left of them). */
  argv: string[] = process.argv.slice(2),
): Promise<void> {
  const args = parseArgs(argv);
  const started = performance.now();
  say(`== ${name} (scale ${args.scale}) ==`);
  const bench = await startBenchHost(args.scale);
  say(`host up at ${bench.host.baseUrl} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  let figures: Figure[] = [];
  try {
    figures = await body(bench, args);
  } finally {
    await bench.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  say('');
  printTable(figures);
  say(`${name} took ${seconds.toFixed(1)} s`);
  if (args.summaryFile) {
    await writeFile(args.summaryFile, JSON.stringify({ name, seconds, figures }, null, 2));
  }
}
