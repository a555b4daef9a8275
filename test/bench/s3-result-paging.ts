/**
 * Deep pages of a 5M-row Athena result read by the S3 result store (functions/aws/results) through
 * a mocked S3 client that serves a real CSV file with byte ranges (test/support/s3-objects.ts).
 * The CSV is written by DuckDB in Athena's format (test/aws/athena-result-files.ts) and cached in
 * <tmpdir>/onchain-bench-athena-csv/. Prints index time, then time and memory per page read
 * (a fresh store each time, so the manifest GET is included), then the time and memory to write
 * the whole result as a materialized-view version (gzip JSON lines, multipart upload; the uploaded
 * bytes are counted, not kept) against the index pass over the same file; never asserts.
 *
 *   npx tsx --expose-gc test/bench/s3-result-paging.ts [--rows 5000000] [--page 1000]
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs as parseNodeArgs } from 'node:util';
import { GlueViewVersions } from '../../functions/aws/catalog/view-versions';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import type { ResultColumn, ResultPageRequest } from '../../functions/core/engine';
import { parseResultFilter, parseSortBy } from '../../functions/core/result-filter';
import { writeResultFiles } from '../aws/athena-result-files';
import { mockGlueTables } from '../support/glue-tables';
import { mockS3Objects } from '../support/s3-objects';
import { count, mib, ms, say } from './support';

const { values } = parseNodeArgs({
  options: { rows: { type: 'string', default: '5000000' }, page: { type: 'string', default: '1000' } },
});
const ROWS = Number(values.rows);
const PAGE = Number(values.page);
const COLUMNS: ResultColumn[] = [
  { name: 'i', type: 'bigint' },
  { name: 'j', type: 'bigint' },
  { name: 's', type: 'varchar' },
  { name: 'amount_raw', type: 'decimal(38,0)' },
  { name: 'block_time', type: 'timestamp' },
  { name: 'address', type: 'varbinary' },
];
const SQL = `
  SELECT range AS i, range * 2 AS j, 'row ' || range AS s,
         range::DECIMAL(38,0) * 1000000000000000000 AS amount_raw,
         TIMESTAMP '2024-01-01' + INTERVAL (range) SECOND AS block_time,
         from_hex(printf('%040x', range * 2654435761)) AS address
  FROM range(${ROWS})`;

const dir = join(tmpdir(), 'onchain-bench-athena-csv');
const executionId = `rows-${ROWS}`;
const csvPath = join(dir, `${executionId}.csv`);
if (!existsSync(csvPath)) {
  say(`[setup] writing ${count(ROWS)} rows as Athena CSV to ${csvPath}`);
  const t0 = performance.now();
  await writeResultFiles({ dir, executionId, sql: SQL, columns: COLUMNS });
  say(`[setup] written in ${ms(performance.now() - t0)}`);
}
say(`CSV ${mib((await stat(csvPath)).size)}, ${count(ROWS)} rows, pages of ${count(PAGE)}`);

const s3 = mockS3Objects({ discardUploads: true });
await s3.putFile('svc-athena', `athena/${executionId}.csv`, csvPath);
const location = { bucket: 'svc-athena', key: `athena/${executionId}.csv` };

/** Runs `work` and reports its time and the peak RSS / heap growth over the idle baseline. */
async function measure<T>(label: string, work: () => Promise<T>): Promise<T> {
  globalThis.gc?.();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const timer = setInterval(() => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  }, 5);
  const t0 = performance.now();
  const result = await work();
  const millis = performance.now() - t0;
  clearInterval(timer);
  const { rss, heapUsed } = process.memoryUsage();
  peakRss = Math.max(peakRss, rss);
  peakHeap = Math.max(peakHeap, heapUsed);
  say(
    `${label.padEnd(46)} ${ms(millis).padStart(11)}   peak RSS ${mib(peakRss).padStart(10)} (+${mib(peakRss - base.rss)})   heap +${mib(peakHeap - base.heapUsed)}`,
  );
  return result;
}

const store = () => new S3ResultStore(s3.client, { bucket: 'svc-results' });
const manifest = await measure('index (one streaming pass, once per result)', () =>
  store().register(executionId, location, COLUMNS),
);
say(`manifest: ${count(manifest.offsets.length)} offsets, ${mib(JSON.stringify(manifest).length)}`);

const read = (request: Partial<ResultPageRequest>) =>
  store().readPage({ executionId, limit: PAGE, offset: 0, ...request });
for (const offset of [0, Math.floor(ROWS / 2), ROWS - 10_000]) {
  const page = await measure(`page at offset ${count(offset)}`, () => read({ offset }));
  if (page.rows[0]?.i !== offset) throw new Error(`page at ${offset} starts at ${page.rows[0]?.i}`);
}
await measure('filtered page (full scan)', () => read({ filters: parseResultFilter("s LIKE 'row 4999%'") }));
await measure(`sorted page at offset ${count(ROWS / 2)} (2 passes)`, () =>
  read({ sortBy: parseSortBy('address desc'), offset: ROWS / 2 }),
);
await measure('sample of 1,000 rows', () => read({ sampleCount: 1000, limit: 0 }));

// A refresh of this size on Athena: its rows rewritten once as a view version, in the runner.
const glue = mockGlueTables();
const versions = new GlueViewVersions(glue.client, s3.client, store(), {
  database: 'svc_views',
  bucket: 'svc-data',
  retireAfterMs: 40 * 60_000,
});
const indexMillis = await timed(() => store().register(`${executionId}-again`, location, COLUMNS));
const versionMillis = await timed(() =>
  measure('materialized-view version (gzip JSON lines)', () =>
    versions.prepare('mv.bench.result_rows', { executionId, columns: COLUMNS }),
  ),
);
say(
  `view version: ${mib(s3.uploadedBytes())} uploaded (gzip), ${(versionMillis / indexMillis).toFixed(1)}× the index pass (${ms(indexMillis)}), ` +
    `${((await stat(csvPath)).size / 1024 ** 2 / (versionMillis / 1000)).toFixed(0)} MiB/s of CSV`,
);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}
