import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import type { ResultColumn, ResultPageRequest } from '../../functions/core/engine';
import { BadRequestError, NotFoundError } from '../../functions/core/errors';
import { parseResultFilter, parseSortBy } from '../../functions/core/result-filter';
import { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { mockS3Objects } from '../support/s3-objects';
import { writeResultFiles } from './athena-result-files';

const RESULTS_BUCKET = 'svc-results';
const ROWS = 20_000;
const ID = 'athena-20k';
/** Athena's column types for the result, as GetQueryResults reports them. */
const COLUMNS: ResultColumn[] = [
  { name: 'i', type: 'bigint' },
  { name: 'bucket', type: 'bigint' },
  { name: 'project', type: 'varchar' },
  { name: 'amount_raw', type: 'decimal(38,0)' },
  { name: 'block_time', type: 'timestamp' },
  { name: 'maybe', type: 'bigint' },
  { name: 'data', type: 'varbinary' },
  { name: 'label', type: 'varchar' },
  { name: 'took', type: 'interval day to second' },
];
const SQL = `
  SELECT range AS i,
         range % 10 AS bucket,
         'p' || (range % 3) AS project,
         range::DECIMAL(38,0) * 100000000000000000000 AS amount_raw,
         TIMESTAMP '2024-01-01' + INTERVAL (range * 7) SECOND AS block_time,
         CASE WHEN range % 5 = 0 THEN NULL ELSE range END AS maybe,
         CASE WHEN range % 4 = 0 THEN NULL ELSE from_hex(printf('%08x', range)) END AS data,
         CASE range % 4 WHEN 0 THEN 'a,b "q"' WHEN 1 THEN '' WHEN 2 THEN 'line' || chr(10) || 'break' ELSE NULL END AS label,
         INTERVAL ((range % 200) - 60) HOUR AS took
  FROM range(${ROWS})
  ORDER BY (range * 7919) % ${ROWS}`;

const s3 = mockS3Objects();
let dir: string;
let store: S3ResultStore;
let local: DuckDbResultStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3-result-store-'));
  const { csvPath } = await writeResultFiles({ dir, executionId: ID, sql: SQL, columns: COLUMNS });
  await s3.putFile('svc-athena', `athena/${ID}.csv`, csvPath);
  local = new DuckDbResultStore({ resultsDir: dir });
});

afterAll(async () => {
  await local?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  store = new S3ResultStore(s3.client, { bucket: RESULTS_BUCKET, rowsPerEntry: 256, sortHeapRows: 1000 });
  if (!s3.has(RESULTS_BUCKET, `results/${ID}.json`)) {
    await store.register(ID, { bucket: 'svc-athena', key: `athena/${ID}.csv` }, COLUMNS);
  }
  s3.mock.resetHistory();
});

function request(overrides: Partial<ResultPageRequest> = {}): ResultPageRequest {
  return { executionId: ID, limit: 100, offset: 0, ...overrides };
}

/** The same request against the local store over the same rows (its Parquet twin). */
async function expectSameAsLocal(overrides: Partial<ResultPageRequest>) {
  const [aws, duck] = await Promise.all([
    store.readPage(request(overrides)),
    local.readPage(request(overrides)),
  ]);
  expect(aws.totalRowCount).toBe(duck.totalRowCount);
  expect(aws.rows).toEqual(duck.rows);
  return aws;
}

async function badRequest(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BadRequestError);
  return (error as Error).message;
}

describe('the S3 result store over an Athena CSV result', () => {
  it('indexes the CSV once and stores a manifest next to it', async () => {
    const fresh = new S3ResultStore(s3.client, { bucket: RESULTS_BUCKET, rowsPerEntry: 256 });
    const manifest = await fresh.register(ID, { bucket: 'svc-athena', key: `athena/${ID}.csv` }, COLUMNS);
    expect(manifest.rowCount).toBe(ROWS);
    expect(manifest.offsets).toHaveLength(Math.ceil(ROWS / 256));
    const put = s3.mock.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put).toMatchObject({ Bucket: RESULTS_BUCKET, Key: `results/${ID}.json` });
    // One unranged GET streams the CSV.
    expect(s3.ranges()).toEqual([undefined]);
  });

  it('reads a page with one ranged GET of whole index entries, at any depth', async () => {
    const page = await expectSameAsLocal({ offset: 12_345, limit: 300 });
    expect(page.rows).toHaveLength(300);
    const calls = s3.mock.commandCalls(GetObjectCommand).map((call) => call.args[0].input);
    // The manifest, then one range covering rows 12,288..12,800 (entries 48..50).
    expect(calls.map((input) => input.Key)).toEqual([`results/${ID}.json`, `athena/${ID}.csv`]);
    expect(calls[1]!.Range).toMatch(/^bytes=\d+-\d+$/);
    expect(page.columns).toEqual(COLUMNS);
    expect(page.pageBytes).toBeGreaterThan(300 * 8);
  });

  it('keeps the stored (ORDER BY) order and decodes values as the local store does', async () => {
    const first = await expectSameAsLocal({ limit: 8 });
    expect(first.rows[1]).toEqual({
      // (17,679 × 7,919) mod 20,000 = 1: the second row of the ORDER BY.
      i: 17_679,
      bucket: 9,
      project: 'p0',
      amount_raw: '1767900000000000000000000',
      block_time: '2024-01-02 10:22:33.000 UTC',
      maybe: 17_679,
      data: '0x0000450f',
      label: null,
      took: '0 19:00:00.000',
    });
    expect(first.rows.map((row) => row.label)).toContain('');
    await expectSameAsLocal({ offset: ROWS - 7, limit: 100 });
    const past = await expectSameAsLocal({ offset: ROWS + 5 });
    expect(past.rows).toEqual([]);
  });

  it('projects columns, case-insensitively, and names unknown ones', async () => {
    const page = await expectSameAsLocal({ columns: ['PROJECT', 'i'], limit: 3 });
    expect(page.columns.map((column) => column.name)).toEqual(['project', 'i']);
    expect(await badRequest(store.readPage(request({ columns: ['nope'] })))).toBe(
      'columns: unknown column "nope"; available columns: i, bucket, project, amount_raw, block_time, maybe, data, label, took',
    );
  });

  it.each([
    ["bucket = 3 AND project IN ('p1', 'p2') OR i < 5"],
    ["block_time >= '2024-01-02'"],
    ["block_time < '2024-01-01 01:00'"],
    ["amount_raw = '1234500000000000000000000'"],
    ['amount_raw > 1.99e24'],
    ["project LIKE '%2'"],
    ["i LIKE '12_4'"],
    ["data = '0x000045AF'"],
    ["data LIKE '0x0000%'"],
    ['maybe IS NULL'],
    ['label IS NOT NULL AND maybe != 3'],
    ["label = ''"],
    ["project = 'p1'' OR ''1''=''1'"],
    ["took > '1 00:00:00.000'"],
    ["took <= '-1 02:00:00.000' OR took IN ('0 05:00:00.000', '5 00:00:00.000')"],
  ])('filters like the local store: %s', async (filter) => {
    await expectSameAsLocal({ filters: parseResultFilter(filter), limit: 50, offset: 3 });
  });

  it.each([
    ['bucket desc, project', 0, 200],
    ['amount_raw desc', 5, 10],
    ['maybe asc', ROWS - 10, 10],
    ['label, i desc', 17, 40],
    ['block_time desc', 9_990, 20],
    ['data', 15_000, 25],
    ['took desc, i', 0, 150],
    ['took', 9_000, 30],
  ])('sorts like the local store: %s (offset %d)', async (sortBy, offset, limit) => {
    await expectSameAsLocal({ sortBy: parseSortBy(sortBy), offset, limit });
  });

  it('selects deep sorted pages in bounded passes, combined with filters', async () => {
    await expectSameAsLocal({
      filters: parseResultFilter('bucket = 7 OR maybe IS NULL'),
      sortBy: parseSortBy('i desc'),
      columns: ['i'],
      offset: 5_000,
      limit: 30,
    });
  });

  it('draws a uniform, repeatable sample in stored order', async () => {
    const sample = await store.readPage(request({ sampleCount: 300, columns: ['i'] }));
    expect(sample.totalRowCount).toBe(ROWS);
    const ids = sample.rows.map((row) => row.i as number);
    expect(new Set(ids).size).toBe(300);
    for (let third = 0; third < 3; third++) {
      expect(ids.filter((i) => Math.floor(i / (ROWS / 3)) === third).length).toBeGreaterThan(60);
    }
    expect((await store.readPage(request({ sampleCount: 300, columns: ['i'] }))).rows).toEqual(sample.rows);
    const sorted = await store.readPage(
      request({ sampleCount: 300, columns: ['i'], sortBy: parseSortBy('i') }),
    );
    expect(sorted.rows.map((row) => row.i)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('writes the same CSV as the local store', async () => {
    const options = request({
      filters: parseResultFilter('i < 12'),
      columns: ['i', 'label', 'data'],
      limit: 6,
    });
    const [aws, duck] = await Promise.all([store.readCsv(options), local.readCsv(options)]);
    expect(aws).toEqual(duck);
    expect(aws.csv.startsWith('i,label,data\r\n')).toBe(true);
  });

  it('refuses bad requests with the same messages as the local store', async () => {
    expect(await badRequest(store.readPage(request({ filters: parseResultFilter('nope = 1') })))).toMatch(
      /^filters: unknown column "nope"; available columns: i, bucket/,
    );
    expect(await badRequest(store.readPage(request({ sortBy: parseSortBy('nope') })))).toMatch(
      /^sort_by: unknown column "nope"/,
    );
    expect(
      await badRequest(store.readPage(request({ filters: parseResultFilter("block_time > 'yesterday'") }))),
    ).toBe(
      "filters: 'yesterday' is not a timestamp (column block_time); write a timestamp or a date in quotes, e.g. block_time >= '2024-03-05 12:00:00'",
    );
    for (const filter of ["i = 'x'", "amount_raw > 'lots'", "data = 'abc'", "took > 'soon'", 'took > 5']) {
      const filters = parseResultFilter(filter);
      const [aws, duck] = await Promise.all([
        badRequest(store.readPage(request({ filters }))),
        badRequest(local.readPage(request({ filters }))),
      ]);
      expect(aws, filter).toMatch(/^filters: .* is not an? .* \(column \w+\); write /);
      expect(aws, filter).toBe(duck);
    }
    expect(
      await badRequest(store.readPage(request({ sampleCount: 5, filters: parseResultFilter('i = 1') }))),
    ).toMatch(/sample_count cannot be combined with filters/);
    expect(await badRequest(store.readPage(request({ limit: -1 })))).toMatch(/limit/);
    for (const columns of [
      ['i', 'i'],
      ['i', 'I'],
    ]) {
      const [aws, duck] = await Promise.all([
        badRequest(store.readPage(request({ columns }))),
        badRequest(local.readPage(request({ columns }))),
      ]);
      expect(aws, columns.join()).toMatch(/^columns: i is named twice/);
      expect(aws).toBe(duck);
    }
  });

  it('answers a missing or malformed execution as not found, and deletes results with their CSV', async () => {
    await expect(store.readPage(request({ executionId: 'no-such-execution' }))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(store.readCsv(request({ executionId: '../../etc/passwd' }))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    s3.put('svc-athena', 'athena/small.csv', '"x"\n"1"\n"2"\n');
    s3.put('svc-athena', 'athena/small.csv.metadata', 'binary');
    await store.register('small', { bucket: 'svc-athena', key: 'athena/small.csv' }, [
      { name: 'x', type: 'integer' },
    ]);
    expect((await store.readPage(request({ executionId: 'small' }))).rows).toEqual([{ x: 1 }, { x: 2 }]);
    await store.delete('small');
    expect(s3.has('svc-athena', 'athena/small.csv')).toBe(false);
    expect(s3.has('svc-athena', 'athena/small.csv.metadata')).toBe(false);
    await expect(store.readPage(request({ executionId: 'small' }))).rejects.toBeInstanceOf(NotFoundError);
    await store.delete('small');
  });

  it('scans the same rows when the body arrives in chunks that split records, quotes and line ends', async () => {
    for (const overrides of [
      { filters: parseResultFilter('label = \'a,b "q"\' and maybe > 100'), offset: 40 },
      { filters: parseResultFilter("label like 'line%'"), sortBy: parseSortBy('data desc'), offset: 1500 },
      { sortBy: parseSortBy('label, i desc'), offset: 5000 },
      { sampleCount: 50, sortBy: parseSortBy('data') },
    ]) {
      const whole = await store.readPage(request(overrides));
      s3.setChunkBytes(97);
      try {
        expect(await store.readPage(request(overrides))).toEqual(whole);
      } finally {
        s3.setChunkBytes(1 << 20);
      }
    }
  });

  it('refuses filters and sorting that would scan more than a request may, before reading any rows', async () => {
    const bytes = (await store.register(ID, { bucket: 'svc-athena', key: `athena/${ID}.csv` }, COLUMNS))
      .bytes;
    const capped = new S3ResultStore(s3.client, {
      bucket: RESULTS_BUCKET,
      rowsPerEntry: 256,
      sortHeapRows: 1000,
      maxScanBytes: Math.floor(bytes * 1.5),
    });
    s3.mock.resetHistory();
    // One pass fits; a deep sorted page needs two and is refused with what to do instead.
    expect((await capped.readPage(request({ filters: parseResultFilter('bucket = 3') }))).totalRowCount).toBe(
      2000,
    );
    const message = await badRequest(capped.readPage(request({ sortBy: parseSortBy('i'), offset: 5000 })));
    expect(message).toMatch(
      /^sort_by on this result would scan \d+ MiB of stored rows \(20,000 rows\), more than the \d+ MiB one request may scan: filter and order in the query's SQL/,
    );
    const scans = s3.mock.commandCalls(GetObjectCommand).filter((call) => call.args[0].input.Range);
    expect(scans.length).toBe(Math.ceil(Math.ceil(ROWS / 256) / 64));
    // Plain pages are never refused.
    expect((await capped.readPage(request({ offset: 19_990 }))).rows).toHaveLength(10);
  });

  it('keeps the zone Trino writes after a timestamp with time zone, and compares by the time shown', async () => {
    // Trino's text of `x AT TIME ZONE 'America/New_York'` (SqlTimestampWithTimeZone), hour by hour.
    const times = Array.from(
      { length: 30 },
      (_, h) => `2024-01-01 ${String(h % 24).padStart(2, '0')}:00:00.000`,
    );
    const csv = ['"h","ny","plain"', ...times.map((t, h) => `"${h}","${t} America/New_York","${t}"`)].join(
      '\n',
    );
    s3.put('svc-athena', 'athena/zoned.csv', csv);
    await store.register('zoned', { bucket: 'svc-athena', key: 'athena/zoned.csv' }, [
      { name: 'h', type: 'bigint' },
      { name: 'ny', type: 'timestamp(3) with time zone' },
      { name: 'plain', type: 'timestamp(3)' },
    ]);
    const zoned = (overrides: Partial<ResultPageRequest>) =>
      store.readPage(request({ executionId: 'zoned', ...overrides }));
    expect((await zoned({ limit: 1, offset: 7 })).rows).toEqual([
      { h: 7, ny: '2024-01-01 07:00:00.000 America/New_York', plain: '2024-01-01 07:00:00.000 UTC' },
    ]);
    const filters = parseResultFilter(
      "ny >= '2024-01-01 22:00:00.000 America/New_York' OR plain = '2024-01-01 03:00'",
    );
    const hit = await zoned({ filters, sortBy: parseSortBy('ny desc, h'), columns: ['h'] });
    expect(hit.rows).toEqual([{ h: 23 }, { h: 22 }, { h: 3 }, { h: 27 }]);
  });

  it('reads an empty result and a result without a trailing line break', async () => {
    s3.put('svc-athena', 'athena/empty.csv', '"x"\n');
    await store.register('empty', { bucket: 'svc-athena', key: 'athena/empty.csv' }, [
      { name: 'x', type: 'bigint' },
    ]);
    expect(await store.readPage(request({ executionId: 'empty' }))).toMatchObject({
      rows: [],
      totalRowCount: 0,
    });
    s3.put('svc-athena', 'athena/tail.csv', '"x","y"\n"1",\n"2","b"');
    await store.register('tail', { bucket: 'svc-athena', key: 'athena/tail.csv' }, [
      { name: 'x', type: 'bigint' },
      { name: 'y', type: 'varchar' },
    ]);
    expect((await store.readPage(request({ executionId: 'tail', offset: 1 }))).rows).toEqual([
      { x: 2, y: 'b' },
    ]);
    expect((await store.readPage(request({ executionId: 'tail' }))).rows[0]).toEqual({ x: 1, y: null });
  });
});

describe('filter literals of each type, the same on both stores', () => {
  const TYPED = 'athena-typed';
  /** Athena's types; the Parquet twin's are DuckDB's, shown as the same DuneSQL names but `timestamp(3)`. */
  const TYPED_COLUMNS: ResultColumn[] = [
    { name: 'n', type: 'bigint' },
    { name: 'price', type: 'double' },
    { name: 'flag', type: 'boolean' },
    { name: 'day', type: 'date' },
    { name: 'at', type: 'timestamp' },
    { name: 'code', type: 'varchar' },
    { name: 'data', type: 'varbinary' },
    { name: 'took', type: 'interval day to second' },
    { name: 'maybe', type: 'bigint' },
  ];

  beforeAll(async () => {
    const { csvPath } = await writeResultFiles({
      dir,
      executionId: TYPED,
      sql: `
        SELECT range AS n,
               (range * 1.5)::DOUBLE AS price,
               range % 2 = 0 AS flag,
               DATE '2024-03-01' + range::INTEGER AS day,
               TIMESTAMP '2024-03-01' + INTERVAL (range) HOUR AS at,
               range::VARCHAR AS code,
               from_hex(printf('%04x', range)) AS data,
               INTERVAL (range - 10) MINUTE * 7 AS took,
               CASE WHEN range % 5 = 0 THEN NULL ELSE range END AS maybe
        FROM range(48)`,
      columns: TYPED_COLUMNS,
    });
    await s3.putFile('svc-athena', `athena/${TYPED}.csv`, csvPath);
    const typedStore = new S3ResultStore(s3.client, { bucket: RESULTS_BUCKET, rowsPerEntry: 16 });
    await typedStore.register(TYPED, { bucket: 'svc-athena', key: `athena/${TYPED}.csv` }, TYPED_COLUMNS);
  });

  const typed = (filter: string): ResultPageRequest => ({
    executionId: TYPED,
    limit: 100,
    offset: 0,
    filters: parseResultFilter(filter),
  });

  it.each([
    ["price > 'abc'", "filters: 'abc' is not a double (column price); write a number, e.g. price > 1.5"],
    ["n IN (1, 'two')", "filters: 'two' is not a bigint (column n); write a number, e.g. n > 100"],
    [
      "flag = 'yes'",
      "filters: 'yes' is not a boolean (column flag); write true or false in quotes, e.g. flag = 'true'",
    ],
    [
      'flag = 2',
      "filters: 2 is not a boolean (column flag); write true or false in quotes, e.g. flag = 'true'",
    ],
    [
      "day >= 'March'",
      "filters: 'March' is not a date (column day); write a date in quotes, e.g. day >= '2024-03-05'",
    ],
    [
      'day = 20240305',
      "filters: 20240305 is not a date (column day); write a date in quotes, e.g. day >= '2024-03-05'",
    ],
    [
      "day < '2024-02-30'",
      "filters: '2024-02-30' is not a date (column day); write a date in quotes, e.g. day >= '2024-03-05'",
    ],
    [
      "at > 'yesterday'",
      "filters: 'yesterday' is not a timestamp (column at); write a timestamp or a date in quotes, e.g. at >= '2024-03-05 12:00:00'",
    ],
    [
      'at > 1709640000',
      "filters: 1709640000 is not a timestamp (column at); write a timestamp or a date in quotes, e.g. at >= '2024-03-05 12:00:00'",
    ],
    [
      "data = 'abc'",
      "filters: 'abc' is not a varbinary (column data); write 0x and pairs of hex digits in quotes, e.g. data = '0x00ab'",
    ],
    [
      'data = 12',
      "filters: 12 is not a varbinary (column data); write 0x and pairs of hex digits in quotes, e.g. data = '0x00ab'",
    ],
    [
      "took > 'soon'",
      "filters: 'soon' is not an interval day to second (column took); write days hours:minutes:seconds as results show them, in quotes, e.g. took > '1 02:00:00.000' (or '26 hours')",
    ],
  ])('refuses %s, saying what to write', async (filter, message) => {
    const [aws, duck] = await Promise.all([
      badRequest(store.readPage(typed(filter))),
      badRequest(local.readPage(typed(filter))),
    ]);
    expect(aws).toBe(message);
    // Athena reports a timestamp column as `timestamp`; DuckDB's is `timestamp(3)`, as Dune shows it.
    expect(duck).toBe(message.replace('not a timestamp ', 'not a timestamp(3) '));
  });

  it.each([
    'code = 12',
    "code > 30 OR code IN ('4', 5)",
    "data = '0x000A' OR data = '0x'",
    "data LIKE '0x001%'",
    "price >= '4.5' AND price < 9",
    "n > '40' OR n IN (1, '2.0')",
    "flag = 'TRUE' AND n < 10",
    'flag = 0 AND n < 10',
    "day >= '2024-03-10 12:00:00' AND day < '2024-03-12'",
    "at >= '2024-03-02T01:00:00Z' AND at < '2024-03-02 03:00 UTC'",
    "took > '0 02:00:00' OR took < '-50 min'",
    "took = '1 day 2 h' OR took = '-0 00:07:00.000'",
    'maybe IS NULL',
  ])('filters like the local store: %s', async (filter) => {
    const [aws, duck] = await Promise.all([store.readPage(typed(filter)), local.readPage(typed(filter))]);
    expect(aws.totalRowCount, filter).toBeGreaterThan(0);
    expect(aws.totalRowCount).toBe(duck.totalRowCount);
    expect(aws.rows).toEqual(duck.rows);
  });
});
