/**
 * Runs every execution benchmark, each in its own process (so RSS figures start from a fresh
 * host), one after the other, and prints one summary table.
 *
 *   npm run bench                      # default scale 1
 *   npm run bench -- --scale 2
 *   npm run bench -- --only status-throughput
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, printTable, say, startBenchHost } from './support';

const BENCHES = ['execution-overhead', 'result-paging-rss', 'status-throughput'] as const;
/** A benchmark process that runs longer than this is stopped. */
const BENCH_TIMEOUT_MS = 20 * 60_000;

interface Summary {
  name: string;
  seconds: number;
  figures: Figure[];
}

function parse(argv: string[]): { scale: number; only?: string[] } {
  let scale = 1;
  let only: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--scale') scale = Number(argv[++i]);
    else if (argv[i] === '--only') only = (argv[++i] ?? '').split(',').filter(Boolean);
    else throw new Error(`Unknown argument ${JSON.stringify(argv[i])}; use --scale N and/or --only a,b.`);
  }
  if (!Number.isFinite(scale) || scale <= 0) throw new Error('--scale must be a positive number');
  const unknown = only?.filter((name) => !(BENCHES as readonly string[]).includes(name)) ?? [];
  if (unknown.length)
    throw new Error(`Unknown benchmark(s) ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
  return { scale, ...(only ? { only } : {}) };
}

function runScript(script: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    // process.execArgv carries tsx's loader, so the child runs TypeScript the same way.
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], { stdio: 'inherit' });
    const timer = setTimeout(() => child.kill('SIGTERM'), BENCH_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const { scale, only } = parse(process.argv.slice(2));
const selected = BENCHES.filter((name) => !only || only.includes(name));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const machine = `${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.version}`;
const loadBefore = load();
const started = performance.now();

// Build the cached warehouse once up front, so its build time does not land in a benchmark.
{
  const t0 = performance.now();
  const bench = await startBenchHost(scale);
  await bench.stop();
  say(`warehouse (scale ${scale}) ready; host start/stop ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const summaries: Summary[] = [];
const failed: string[] = [];
const outDir = await mkdtemp(join(tmpdir(), 'onchain-bench-summary-'));
try {
  for (const name of selected) {
    const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
    const summaryFile = join(outDir, `${name}.json`);
    say('');
    const code = await runScript(script, ['--scale', String(scale), '--summary-file', summaryFile]);
    if (code !== 0) {
      failed.push(`${name} (exit ${code})`);
      continue;
    }
    summaries.push(JSON.parse(await readFile(summaryFile, 'utf8')) as Summary);
  }
} finally {
  await rm(outDir, { recursive: true, force: true });
}

say(`\n==== Summary: scale ${scale}, ${machine} ====`);
say(`load average before ${loadBefore}, after ${load()} (1/5/15 min)`);
printTable(summaries.flatMap((s) => s.figures));
say('');
for (const s of summaries) say(`${s.name}: ${s.seconds.toFixed(1)} s`);
say(`total: ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (failed.length) {
  say(`FAILED: ${failed.join(', ')}`);
  process.exitCode = 1;
}
