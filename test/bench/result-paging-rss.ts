/**
 * (b) Peak RSS while paging through a large result: a 5M-row execution is read in 10k-row pages
 * through GET /v1/execution/{id}/results. The host runs in this process and the client pages from a
 * child process (page-client.ts), so `process.memoryUsage().rss` is the server's memory alone.
 *
 *   npx tsx test/bench/result-paging-rss.ts [--scale N]
 *
 * The warehouse scale does not matter here (the SQL reads no table); --scale only picks the cache.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  count,
  type Figure,
  median,
  mib,
  ms,
  ratio,
  runBench,
  say,
  submitSql,
  waitFinished,
} from './support';

const ROWS = 5_000_000;
const PAGE_ROWS = 10_000;
/** ROWS rows (a multiple of 10,000: Trino's sequence() stops there, so two are cross joined). */
const SQL = `select i, i * 2 as j, 'row ' || cast(i as varchar) as s
  from (select a.x * 10000 + b.y as i
        from unnest(sequence(0, ${ROWS / 10_000 - 1})) a (x) cross join unnest(sequence(0, 9999)) b (y))`;
/** Paging stops here even if the result is not exhausted (reported as such). */
const PAGING_BUDGET_MS = 10 * 60_000;
const MAX_PAGES = Math.ceil(ROWS / PAGE_ROWS) + 5;

await runBench('result-paging-rss', async (bench) => {
  const rssBeforeSubmit = process.memoryUsage().rss;
  say(`[run] ${SQL}`);
  const t0 = performance.now();
  const executionId = await submitSql(bench, SQL);
  const { status } = await waitFinished(bench, executionId, { everyMs: 20, timeoutMs: 5 * 60_000 });
  const runMillis = performance.now() - t0;
  const file = join(bench.dataDir, 'results', `${executionId}.parquet`);
  const fileBytes = (await stat(file)).size;
  say(
    `completed in ${ms(runMillis)}: ${count(status.result_metadata.total_row_count)} rows, ` +
      `result file ${mib(fileBytes)}`,
  );

  // Let the run's garbage settle so the baseline is what an idle server with a stored result holds.
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = baseline;
  let peakHeap = heapBefore;
  // What the RSS is made of at its peak: the V8 heap reserved, and memory outside it (Buffers).
  let atPeak = process.memoryUsage();
  const sample = () => {
    const usage = process.memoryUsage();
    if (usage.rss > peak) {
      peak = usage.rss;
      atPeak = usage;
    }
    if (usage.heapUsed > peakHeap) peakHeap = usage.heapUsed;
  };
  // Also sample between pages (the server yields while DuckDB reads), not only after each page.
  const timer = setInterval(sample, 25);
  const pageMillis: number[] = [];
  let rows = 0;
  let pages = 0;
  let offset: number | undefined = 0;
  const started = performance.now();
  // The client pages from a child process: this process's RSS is then the host's alone.
  const client = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./page-client.ts', import.meta.url)),
      bench.host.baseUrl,
      bench.host.apiKey,
      executionId,
      String(PAGE_ROWS),
      String(MAX_PAGES),
      String(PAGING_BUDGET_MS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => client.on('exit', resolve));
  try {
    for await (const line of createInterface({ input: client.stdout })) {
      const page = JSON.parse(line) as { ms: number; rows: number; next: number | null };
      pageMillis.push(page.ms);
      rows += page.rows;
      pages++;
      offset = page.next ?? undefined;
      sample();
      if (pages % 100 === 0) {
        say(
          `  ${pages} pages, ${count(rows)} rows, rss ${mib(process.memoryUsage().rss)}, ` +
            `last page ${ms(pageMillis.at(-1)!)}`,
        );
      }
    }
    if ((await exited) !== 0) throw new Error('the paging client failed (see its error above)');
  } finally {
    clearInterval(timer);
    client.kill();
  }
  const seconds = (performance.now() - started) / 1000;
  const complete = offset === undefined;
  if (!complete) say(`stopped early after ${pages} pages (time or page budget); figures cover those pages`);
  // Medians of the first and last 50 pages: does a deep OFFSET cost more than a shallow one?
  const first = median(pageMillis.slice(0, 50));
  const last = median(pageMillis.slice(-50));
  say(`page time: median of first 50 ${ms(first)}, of last 50 ${ms(last)}`);
  return [
    {
      bench: '(b) paging',
      measure: `${count(ROWS)}-row result: engine run (submit → completed)`,
      value: ms(runMillis),
      baseline: `file ${mib(fileBytes)}`,
    },
    {
      bench: '(b) paging',
      measure: `RSS: peak while paging ${count(rows)} rows in ${pages} pages of ${count(PAGE_ROWS)}${complete ? '' : ' (incomplete)'}`,
      value: mib(peak),
      baseline: `${mib(baseline)} before`,
      ratio: `+${mib(peak - baseline)}`,
    },
    {
      bench: '(b) paging',
      measure: 'JS heap used: peak while paging',
      value: mib(peakHeap),
      baseline: `${mib(heapBefore)} before`,
      ratio: `+${mib(peakHeap - heapBefore)}`,
    },
    {
      bench: '(b) paging',
      measure: 'at the RSS peak: V8 heap reserved (heapTotal), outside the heap (external)',
      value: mib(atPeak.heapTotal),
      baseline: `external ${mib(atPeak.external)}`,
    },
    {
      bench: '(b) paging',
      measure: 'RSS after paging',
      value: mib(process.memoryUsage().rss),
    },
    {
      bench: '(b) paging',
      measure: 'RSS before submitting (fresh host)',
      value: mib(rssBeforeSubmit),
    },
    {
      bench: '(b) paging',
      measure: 'paging throughput',
      value: `${(pages / seconds).toFixed(1)} pages/s, ${count(rows / seconds)} rows/s`,
      baseline: `${seconds.toFixed(1)} s total`,
    },
    {
      bench: '(b) paging',
      measure: 'page latency: median of last 50 pages vs first 50',
      value: ms(last),
      baseline: `${ms(first)} first`,
      ratio: ratio(last, first),
    },
  ] satisfies Figure[];
});
