/**
 * Runs every execution benchmark, each in its own process (so RSS figures start from a fresh
 * host), one after the other, and prints one summary table.
 *
 *   npm run bench                      # default scale 1
 *   npm run bench -- --scale 2
 *   npm run bench -- --only status-throughput
 *   npm run bench -- --only pipeline-dag,pipeline-real-data
 *   npm run bench -- --only mcp-latency
 *   npm run bench -- --only heavy-load
 *   npm run bench -- --only lambda-bundles
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, printTable, say, startBenchHost } from './support';

/** Random DAGs in the pipeline simulation when run from here (its own default is 50, ~2–3 min). */
const DAG_GRAPHS = 10;

interface BenchSpec {
  name: string;
  /** Arguments of the script for a warehouse scale. */
  args(scale: number): string[];
  /**
   * How its figures come back: `file` (the script writes `--summary-file`, see `runBench`) or a
   * parser of its printed output (scripts that do not use the shared plumbing).
   */
  figures: 'file' | ((stdout: string) => Figure[]);
}

const BENCHES: readonly BenchSpec[] = [
  { name: 'execution-overhead', args: (scale) => ['--scale', String(scale)], figures: 'file' },
  { name: 'result-paging-rss', args: (scale) => ['--scale', String(scale)], figures: 'file' },
  { name: 'status-throughput', args: (scale) => ['--scale', String(scale)], figures: 'file' },
  // A simulation on aws-local-stepfunctions: no warehouse, and its --scale scales node durations,
  // so the warehouse scale is not passed on.
  { name: 'pipeline-dag', args: () => ['--graphs', String(DAG_GRAPHS)], figures: pipelineDagFigures },
  { name: 'pipeline-real-data', args: (scale) => ['--scale', String(scale)], figures: 'file' },
  { name: 'mcp-latency', args: (scale) => ['--scale', String(scale)], figures: 'file' },
  { name: 'heavy-load', args: (scale) => ['--scale', String(scale)], figures: 'file' },
  // Pure translation, no warehouse.
  { name: 'dunesql-translation', args: () => [], figures: dunesqlTranslationFigures },
  // cdk synth with bundling, no host: bundle sizes and cold imports.
  { name: 'lambda-bundles', args: () => [], figures: 'file' },
];
const NAMES = BENCHES.map((b) => b.name);
/** A benchmark process that runs longer than this is stopped. */
const BENCH_TIMEOUT_MS = 20 * 60_000;

interface Summary {
  name: string;
  seconds: number;
  figures: Figure[];
}

/**
 * The "all" row of pipeline-dag's table (columns separated by two or more spaces): bucket, n,
 * makespan/CP, flat makespan/CP, cap40/CP, levels/CP (A), ready-set/CP (E), overhead/hop ms,
 * hand-off ms p50/p90.
 */
function pipelineDagFigures(stdout: string): Figure[] {
  const cells = stdout
    .split('\n')
    .find((line) => line.startsWith('all '))
    ?.trim()
    .split(/\s{2,}/);
  const bench = '(d) DAG sim';
  if (!cells || cells.length < 9) {
    return [{ bench, measure: 'summary row not found in the output', value: 'see above' }];
  }
  const graphs = `${cells[1]} random DAGs, 10–200 nodes, 20–200 ms nodes`;
  return [
    {
      bench,
      measure: `makespan/CP, grouped ASL, mean / p90 / max (${graphs})`,
      value: cells[2]!,
      baseline: `levels (A) ${cells[5]}`,
    },
    { bench, measure: 'makespan/CP under the local 40-branch cap, zero overhead', value: cells[4]! },
    { bench, measure: 'overhead per dependency hop, ms mean / p90 / max', value: cells[7]! },
    { bench, measure: 'hand-off (dependencies done → start_node), ms p50 / p90', value: cells[8]! },
  ];
}

function dunesqlTranslationFigures(stdout: string): Figure[] {
  const bench = '(h) DuneSQL';
  const line = (prefix: string) =>
    stdout
      .split('\n')
      .find((text) => text.trim().startsWith(prefix))
      ?.split(': ')
      .slice(1)
      .join(': ');
  const perQuery = line('per query');
  if (!perQuery) return [{ bench, measure: 'figures not found in the output', value: 'see above' }];
  return [
    { bench, measure: 'translation per query, warm (p50, p95)', value: perQuery },
    {
      bench,
      measure: 'translator load + first translation, once per engine process',
      value: `${line('load')} + ${line('first translation')}`,
    },
    ...stdout
      .split('\n')
      .filter((text) => text.trim().startsWith('large statement'))
      .map((text) => {
        const [measure, value] = text.trim().split(': ');
        return { bench, measure: measure ?? text, value: value ?? '?' };
      }),
    { bench, measure: 'translating process RSS', value: line('process RSS') ?? '?' },
  ];
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
  const unknown = only?.filter((name) => !NAMES.includes(name)) ?? [];
  if (unknown.length)
    throw new Error(`Unknown benchmark(s) ${unknown.join(', ')}; known: ${NAMES.join(', ')}`);
  return { scale, ...(only ? { only } : {}) };
}

/** Runs a script in a child process; its output is shown as it comes and also kept when `capture`. */
function runScript(
  script: string,
  args: string[],
  capture: boolean,
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    // process.execArgv carries tsx's loader, so the child runs TypeScript the same way.
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
      stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      process.stdout.write(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), BENCH_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

const { scale, only } = parse(process.argv.slice(2));
const selected = BENCHES.filter((bench) => !only || only.includes(bench.name));
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
  for (const bench of selected) {
    const script = fileURLToPath(new URL(`./${bench.name}.ts`, import.meta.url));
    const summaryFile = join(outDir, `${bench.name}.json`);
    const fromFile = bench.figures === 'file';
    say('');
    const t0 = performance.now();
    const { code, stdout } = await runScript(
      script,
      [...bench.args(scale), ...(fromFile ? ['--summary-file', summaryFile] : [])],
      !fromFile,
    );
    if (code !== 0) {
      failed.push(`${bench.name} (exit ${code})`);
      continue;
    }
    summaries.push(
      bench.figures === 'file'
        ? (JSON.parse(await readFile(summaryFile, 'utf8')) as Summary)
        : { name: bench.name, seconds: (performance.now() - t0) / 1000, figures: bench.figures(stdout) },
    );
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
