/**
 * (b) Peak RSS while paging through a large result: a 5M-row execution is read in 10k-row pages
 * through GET /v1/execution/{id}/results. The host runs in this process, so
 * `process.memoryUsage().rss` is the server's memory (plus this client's, which holds one page).
 *
 *   npx tsx test/bench/result-paging-rss.ts [--scale N]
 *
 * The warehouse scale does not matter here (the SQL reads no table); --scale only picks the cache.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
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
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    if (rss > peak) peak = rss;
    if (heapUsed > peakHeap) peakHeap = heapUsed;
  };
  // Also sample between pages (the server yields while DuckDB reads), not only after each page.
  const timer = setInterval(sample, 25);
  const pageMillis: number[] = [];
  let rows = 0;
  let pages = 0;
  let offset: number | undefined = 0;
  const started = performance.now();
  const deadline = Date.now() + PAGING_BUDGET_MS;
  try {
    while (offset !== undefined && pages < MAX_PAGES && Date.now() < deadline) {
      const p0 = performance.now();
      const page = await bench.api(
        `/v1/execution/${executionId}/results?limit=${PAGE_ROWS}&offset=${offset}`,
      );
      pageMillis.push(performance.now() - p0);
      rows += page.result.rows.length;
      pages++;
      offset = page.next_offset;
      sample();
      if (pages % 100 === 0) {
        say(
          `  ${pages} pages, ${count(rows)} rows, rss ${mib(process.memoryUsage().rss)}, ` +
            `last page ${ms(pageMillis.at(-1)!)}`,
        );
      }
    }
  } finally {
    clearInterval(timer);
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
