import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ResultPageRequest } from '../../functions/core/engine';
import { BadRequestError, NotFoundError } from '../../functions/core/errors';
import { parseResultFilter, parseSortBy } from '../../functions/core/result-filter';
import { duneSqlTypeName } from '../../functions/core/sql-types';
import type { DuckDbQueryEngine } from '../../functions/local/engine/query-engine';
import { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { createEngineFixture, type EngineFixture, engineOver, runRequest } from './fixture';

let fixture: EngineFixture;
let engine: DuckDbQueryEngine;
let store: DuckDbResultStore;

const ROWS = 150_000;
/** 150k rows: i, bucket (i % 10), project, a uint256-sized amount, a timestamp a second apart, a nullable. */
const BIG_SQL = `
  SELECT range AS i,
         range % 10 AS bucket,
         'p' || (range % 3) AS project,
         (range::UHUGEINT * 100000000000000000000::UHUGEINT) AS amount_raw,
         TIMESTAMP '2024-01-01' + INTERVAL (range) SECOND AS block_time,
         CASE WHEN range % 5 = 0 THEN NULL ELSE range END AS maybe
  FROM range(${ROWS})`;
let big: string;

beforeAll(async () => {
  fixture = await createEngineFixture({ sampleData: false });
  // Value encoding is about DuckDB's own types (HUGEINT, STRUCT, BLOB...), written in DuckDB's SQL.
  ({ engine, store } = engineOver(fixture, { rawDuckDbForEngineTests: true }));
  const request = runRequest(BIG_SQL);
  await engine.run(request);
  big = request.executionId;
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
  await fixture?.cleanup();
});

function page(request: Partial<ResultPageRequest> = {}) {
  return store.readPage({ executionId: big, limit: 100, offset: 0, ...request });
}

async function badRequest(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return (error as Error).message;
  }
  throw new Error('expected a BadRequestError');
}

describe('a stored result whose shape the engine reported (warm)', () => {
  async function engineShape() {
    const request = runRequest(BIG_SQL);
    const result = await engine.run(request);
    return {
      executionId: request.executionId,
      shape: { columns: result.columns, rowCount: result.rowCount },
    };
  }

  it('serves pages without reading the shape from the file, the same pages as a cold store', async () => {
    const { executionId, shape } = await engineShape();
    const cold = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const warmed = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const run = vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll');
    try {
      await warmed.warm(executionId, shape);
      for (const request of [
        { limit: 5, offset: 7 },
        { limit: 3, offset: 0, sampleCount: 3 },
        { limit: 2, offset: 1, columns: ['amount_raw', 'i'] },
      ]) {
        const first = await warmed.readPage({ executionId, ...request });
        expect(run.mock.calls.filter(([sql]) => String(sql).startsWith('DESCRIBE'))).toHaveLength(0);
        expect(first).toEqual(await cold.readPage({ executionId, ...request }));
        run.mockClear();
      }
      expect((await warmed.readPage({ executionId, limit: 1, offset: 0 })).totalRowCount).toBe(ROWS);
      // A result that does not exist is still not found.
      await warmed.warm('01HKZJ0000000000000000000Z', shape);
      await expect(
        warmed.readPage({ executionId: '01HKZJ0000000000000000000Z', limit: 1, offset: 0 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      run.mockRestore();
      await warmed.close();
      await cold.close();
    }
  });

  it('reads the stored types from the file once when filters or sorting need them', async () => {
    const { executionId, shape } = await engineShape();
    const cold = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const warmed = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const run = vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll');
    // amount_raw is a UHUGEINT stored as text: comparing and sorting it as a number needs that.
    const filtered = {
      executionId,
      limit: 3,
      offset: 0,
      filters: parseResultFilter("amount_raw >= '100000000000000000000000' and bucket = 4"),
      sortBy: parseSortBy('amount_raw desc'),
    };
    try {
      await warmed.warm(executionId, shape);
      const [first, second] = await Promise.all([warmed.readPage(filtered), warmed.readPage(filtered)]);
      expect(run.mock.calls.filter(([sql]) => String(sql).startsWith('DESCRIBE'))).toHaveLength(1);
      run.mockRestore();
      const expected = await cold.readPage(filtered);
      expect(first).toEqual(expected);
      expect(second).toEqual(expected);
      expect(expected.rows[0]?.amount_raw).toBe('14999400000000000000000000');
    } finally {
      run.mockRestore();
      await warmed.close();
      await cold.close();
    }
  });
});

describe('a small result read whole at its end (warm)', () => {
  const SMALL_ROWS = 5_000;

  it('serves every plain page from memory, equal to the file, and filtered or sorted ones from the file', async () => {
    const request = runRequest(BIG_SQL.replace(`range(${ROWS})`, `range(${SMALL_ROWS})`));
    const result = await engine.run(request);
    const { executionId } = request;
    const cold = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const warmed = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const run = vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll');
    try {
      await warmed.warm(executionId, { columns: result.columns, rowCount: result.rowCount });
      const plain: Partial<ResultPageRequest>[] = [
        { limit: 100_000, offset: 0 },
        { limit: 7, offset: 4_990 },
        { limit: 10, offset: SMALL_ROWS + 5 },
        { limit: 3, offset: 11, columns: ['maybe', 'amount_raw', 'i'] },
      ];
      const pages = [];
      for (const page of plain)
        pages.push(await warmed.readPage({ executionId, limit: 1, offset: 0, ...page }));
      const csv = await warmed.readCsv({ executionId, limit: 20, offset: 30 });
      // One read of the whole file, at the warm; no page read it again.
      expect(run.mock.calls.map(([sql]) => String(sql))).toEqual(['SELECT * FROM read_parquet($path)']);
      run.mockRestore();
      for (const [i, page] of plain.entries()) {
        expect(pages[i]).toEqual(await cold.readPage({ executionId, limit: 1, offset: 0, ...page }));
      }
      expect(pages[0]?.rows).toHaveLength(SMALL_ROWS);
      expect(pages[2]?.rows).toEqual([]);
      expect(csv).toEqual(await cold.readCsv({ executionId, limit: 20, offset: 30 }));
      const filtered = {
        executionId,
        limit: 5,
        offset: 0,
        filters: parseResultFilter('bucket = 3'),
        sortBy: parseSortBy('i desc'),
      };
      const fromFile = await warmed.readPage(filtered);
      expect(fromFile).toEqual(await cold.readPage(filtered));
      expect(fromFile.rows[0]?.i).toBe(SMALL_ROWS - 7);
      expect(fromFile.totalRowCount).toBe(SMALL_ROWS / 10);
      // A deleted result is gone from memory too.
      await warmed.delete(executionId);
      await expect(warmed.readPage({ executionId, limit: 1, offset: 0 })).rejects.toBeInstanceOf(
        NotFoundError,
      );
    } finally {
      run.mockRestore();
      await warmed.close();
      await cold.close();
    }
  });

  it('is not read whole when it holds more than 200,000 values', async () => {
    const request = runRequest(BIG_SQL.replace(`range(${ROWS})`, 'range(40000)'));
    const result = await engine.run(request);
    const warmed = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
    const run = vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll');
    try {
      await warmed.warm(request.executionId, { columns: result.columns, rowCount: result.rowCount });
      const page = await warmed.readPage({ executionId: request.executionId, limit: 2, offset: 39_998 });
      expect(page.rows.map((row) => row.i)).toEqual([39_998, 39_999]);
      expect(run.mock.calls.map(([sql]) => String(sql))).not.toContain('SELECT * FROM read_parquet($path)');
    } finally {
      run.mockRestore();
      await warmed.close();
    }
  });
});

describe('paging a 150k-row result', () => {
  it('returns consecutive pages in stored order with the total row count', async () => {
    const first = await page({ limit: 1000, offset: 0 });
    const second = await page({ limit: 1000, offset: 1000 });
    expect(first.totalRowCount).toBe(ROWS);
    expect(first.rows).toHaveLength(1000);
    expect(first.rows[0]).toEqual({
      i: 0,
      bucket: 0,
      project: 'p0',
      amount_raw: '0',
      block_time: '2024-01-01 00:00:00.000 UTC',
      maybe: null,
    });
    expect(second.rows[0]?.i).toBe(1000);
    expect(second.rows[999]?.i).toBe(1999);
    expect(first.pageBytes).toBeGreaterThan(1000 * 8 * 4);
    expect(first.columns.map((column) => `${column.name} ${column.type}`)).toEqual([
      'i BIGINT',
      'bucket BIGINT',
      'project VARCHAR',
      'amount_raw UHUGEINT',
      'block_time TIMESTAMP',
      'maybe BIGINT',
    ]);
  });

  it('reads a page that holds the whole result straight through, in stored order, as a paged read would', async () => {
    const whole = await page({ limit: ROWS, offset: 0 });
    expect(whole.totalRowCount).toBe(ROWS);
    expect(whole.rows).toHaveLength(ROWS);
    expect(whole.rows.every((row, k) => row.i === k)).toBe(true);
    // The same rows as one row short of the whole, then the last row.
    const short = await page({ limit: ROWS - 1, offset: 0 });
    const rest = await page({ limit: 10, offset: ROWS - 1 });
    expect([...short.rows, ...rest.rows]).toEqual(whole.rows);
    const projected = await page({ columns: ['project', 'i'], limit: ROWS + 5, offset: 0 });
    expect(projected.rows[ROWS - 1]).toEqual({ project: whole.rows[ROWS - 1]!.project, i: ROWS - 1 });
  });

  it('returns the last partial page, and empty rows with the true total past the end', async () => {
    const last = await page({ limit: 1000, offset: ROWS - 10 });
    expect(last.rows.map((row) => row.i)).toEqual(Array.from({ length: 10 }, (_, k) => ROWS - 10 + k));
    const past = await page({ limit: 1000, offset: ROWS + 5 });
    expect(past.rows).toEqual([]);
    expect(past.totalRowCount).toBe(ROWS);
    expect(past.pageBytes).toBe(0);
  });

  it('projects the requested columns in the requested order', async () => {
    const projected = await page({ columns: ['project', 'i'], limit: 2 });
    expect(projected.columns).toEqual([
      { name: 'project', type: 'VARCHAR' },
      { name: 'i', type: 'BIGINT' },
    ]);
    expect(projected.rows).toEqual([
      { project: 'p0', i: 0 },
      { project: 'p1', i: 1 },
    ]);
    expect(await badRequest(page({ columns: ['i', 'nope'] }))).toBe(
      'columns: unknown column "nope"; available columns: i, bucket, project, amount_raw, block_time, maybe',
    );
  });

  it('filters with AND/OR/IN and counts the matching rows', async () => {
    const filters = parseResultFilter("bucket = 3 AND project IN ('p1', 'p2') OR i < 5");
    const filtered = await page({ filters, limit: 10_000 });
    const expected = Array.from({ length: ROWS }, (_, i) => i).filter(
      (i) => (i % 10 === 3 && i % 3 !== 0) || i < 5,
    );
    expect(filtered.totalRowCount).toBe(expected.length);
    expect(filtered.rows.map((row) => row.i)).toEqual(expected.slice(0, 10_000));
  });

  it('compares timestamps with date strings', async () => {
    const filtered = await page({ filters: parseResultFilter("block_time >= '2024-01-02'"), limit: 1 });
    expect(filtered.totalRowCount).toBe(ROWS - 86_400);
    expect(filtered.rows[0]?.block_time).toBe('2024-01-02 00:00:00.000 UTC');
  });

  it('compares uint256 amounts exactly, as strings or numbers', async () => {
    const exact = await page({ filters: parseResultFilter("amount_raw = '12345600000000000000000000'") });
    expect(exact.rows.map((row) => row.i)).toEqual([123456]);
    expect(exact.rows[0]?.amount_raw).toBe('12345600000000000000000000');
    const above = await page({ filters: parseResultFilter('amount_raw > 1.49998e25'), limit: 10 });
    expect(above.rows.map((row) => row.i)).toEqual([149999]);
  });

  it('supports LIKE, IS NULL and IS NOT NULL', async () => {
    expect((await page({ filters: parseResultFilter("project LIKE '%2'") })).totalRowCount).toBe(ROWS / 3);
    expect((await page({ filters: parseResultFilter('maybe IS NULL') })).totalRowCount).toBe(ROWS / 5);
    expect((await page({ filters: parseResultFilter('maybe IS NOT NULL') })).totalRowCount).toBe(
      (ROWS * 4) / 5,
    );
    const numericText = await page({ filters: parseResultFilter("i LIKE '12345_'"), limit: 20 });
    expect(numericText.totalRowCount).toBe(10);
  });

  it('treats quotes in literals as data, never as SQL', async () => {
    const hostile = await page({ filters: parseResultFilter("project = 'p1'' OR ''1''=''1'") });
    expect(hostile.totalRowCount).toBe(0);
    const dropped = await page({ filters: parseResultFilter("project = '''; DROP TABLE x; --'") });
    expect(dropped.totalRowCount).toBe(0);
  });

  it('sorts by several keys with stable, non-overlapping pages', async () => {
    const sortBy = parseSortBy('bucket desc, project');
    const first = await page({ sortBy, limit: 500, offset: 0 });
    const second = await page({ sortBy, limit: 500, offset: 500 });
    expect(first.rows[0]).toMatchObject({ bucket: 9, project: 'p0' });
    const ids = [...first.rows, ...second.rows].map((row) => row.i);
    expect(new Set(ids).size).toBe(1000);
    const byAmount = await page({ sortBy: parseSortBy('amount_raw desc'), limit: 2, columns: ['i'] });
    expect(byAmount.rows).toEqual([{ i: 149999 }, { i: 149998 }]);
    const nullsLast = await page({ sortBy: parseSortBy('maybe asc'), offset: ROWS - 1, limit: 1 });
    expect(nullsLast.rows[0]?.maybe).toBeNull();
  });

  it('combines filters, sort and projection', async () => {
    const combined = await page({
      filters: parseResultFilter('bucket = 7'),
      sortBy: parseSortBy('i desc'),
      columns: ['i'],
      limit: 3,
      offset: 1,
    });
    expect(combined.totalRowCount).toBe(ROWS / 10);
    expect(combined.rows).toEqual([{ i: 149987 }, { i: 149977 }, { i: 149967 }]);
  });

  it('draws a uniform, repeatable sample of the requested size', async () => {
    const sample = await page({ sampleCount: 200, columns: ['i'] });
    expect(sample.totalRowCount).toBe(ROWS);
    const ids = sample.rows.map((row) => row.i as number);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    // Spread over the whole result: each third holds a fair share.
    for (let third = 0; third < 3; third++) {
      const inThird = ids.filter((i) => Math.floor(i / (ROWS / 3)) === third).length;
      expect(inThird).toBeGreaterThan(35);
    }
    expect((await page({ sampleCount: 200, columns: ['i'] })).rows).toEqual(sample.rows);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('rejects unknown columns and badly typed literals in filters and sort_by', async () => {
    expect(await badRequest(page({ filters: parseResultFilter('nope = 1') }))).toMatch(
      /^filters: unknown column "nope"; available columns: i, bucket/,
    );
    expect(await badRequest(page({ sortBy: parseSortBy('nope') }))).toMatch(
      /^sort_by: unknown column "nope"/,
    );
    // A literal the column cannot hold: its DuneSQL type and what to write, as the AWS host says it.
    expect(await badRequest(page({ filters: parseResultFilter("block_time > 'yesterday'") }))).toBe(
      "filters: 'yesterday' is not a timestamp(3) (column block_time); write a timestamp or a date in quotes, e.g. block_time >= '2024-03-05 12:00:00'",
    );
    expect(await badRequest(page({ filters: parseResultFilter('block_time > 1709640000') }))).toMatch(
      /^filters: 1709640000 is not a timestamp\(3\) \(column block_time\); write a timestamp/,
    );
    expect(await badRequest(page({ filters: parseResultFilter("bucket = 1 OR i IN (1, 'x')") }))).toBe(
      "filters: 'x' is not a bigint (column i); write a number, e.g. i > 100",
    );
    // uint256, stored as exact text, is checked as the number it is.
    expect(await badRequest(page({ filters: parseResultFilter("amount_raw > 'lots'") }))).toBe(
      "filters: 'lots' is not a uint256 (column amount_raw); write a number, e.g. amount_raw > 100",
    );
    expect(await badRequest(page({ sampleCount: 5, filters: parseResultFilter('i = 1') }))).toMatch(
      /sample_count cannot be combined with filters/,
    );
    expect(await badRequest(page({ limit: -1 }))).toMatch(/limit/);
  });

  it('still compares what is valid: a number with text as text, numbers written as strings, dates with timestamps', async () => {
    expect((await page({ filters: parseResultFilter('project = 1') })).totalRowCount).toBe(0);
    expect(
      (await page({ filters: parseResultFilter("i < '3' OR i IN ('149999', 7.0)") })).totalRowCount,
    ).toBe(5);
    const amount = await page({ filters: parseResultFilter("amount_raw >= '1.49998e25'"), columns: ['i'] });
    expect(amount.rows).toEqual([{ i: 149998 }, { i: 149999 }]);
    const times = await page({
      filters: parseResultFilter(
        "block_time >= '2024-01-01T00:00:58Z' AND block_time < '2024-01-01 00:01 UTC'",
      ),
      columns: ['i'],
    });
    expect(times.rows).toEqual([{ i: 58 }, { i: 59 }]);
  });

  it('matches column names case-insensitively when unambiguous', async () => {
    const upper = await page({ columns: ['I'], filters: parseResultFilter('BUCKET = 1'), limit: 1 });
    expect(upper.rows).toEqual([{ i: 1 }]);
  });
});

describe('value encoding', () => {
  let executionId: string;

  beforeAll(async () => {
    const request = runRequest(`
      SELECT 340282366920938463463374607431768211455::UHUGEINT AS uint256_max,
             (-170141183460469231731687303715884105728)::HUGEINT AS int128_min,
             sum(x) AS small_sum,
             12345678901234567890::UBIGINT AS big_ubigint,
             9007199254740993::BIGINT AS unsafe_bigint,
             -42::BIGINT AS small_bigint,
             '\\x00\\xAB\\xCD\\xEF'::BLOB AS data,
             ''::BLOB AS empty_blob,
             TIMESTAMP '2024-03-05 13:21:10.123456' AS ts,
             TIMESTAMPTZ '2024-03-05 13:21:10+02' AS ts_tz,
             TIMESTAMP_NS '2024-03-05 13:21:10.987654321' AS ts_ns,
             DATE '2024-03-05' AS day,
             1.50::DECIMAL(10, 2) AS price,
             123456789012345678.123456789::DECIMAL(38, 9) AS precise,
             0.1::DOUBLE AS ratio,
             'NaN'::DOUBLE AS not_a_number,
             true AS flag,
             NULL::VARCHAR AS nothing,
             [1, 2, NULL] AS list,
             [340282366920938463463374607431768211455::UHUGEINT, 7::UHUGEINT] AS amounts,
             {'addr': '\\x01\\x02'::BLOB, 'at': TIMESTAMP '2024-01-01', 'n': [1::HUGEINT]} AS nested,
             MAP {'a': 1, 'b': 2} AS map,
             ROW(1, 'x') AS unnamed,
             list_zip([1, 2], ['a']) AS zipped,
             [ROW(1::HUGEINT, 'y')] AS unnamed_huge
      FROM (VALUES (1), (2)) t(x)`);
    await engine.run(request);
    executionId = request.executionId;
  });

  it('encodes every type as analysts expect', async () => {
    const { rows, columns } = await store.readPage({ executionId, limit: 10, offset: 0 });
    expect(rows).toEqual([
      {
        uint256_max: '340282366920938463463374607431768211455',
        int128_min: '-170141183460469231731687303715884105728',
        small_sum: 3,
        big_ubigint: '12345678901234567890',
        unsafe_bigint: '9007199254740993',
        small_bigint: -42,
        data: '0x00abcdef',
        empty_blob: '0x',
        ts: '2024-03-05 13:21:10.123 UTC',
        ts_tz: '2024-03-05 11:21:10.000 UTC',
        ts_ns: '2024-03-05 13:21:10.987 UTC',
        day: '2024-03-05',
        price: 1.5,
        precise: '123456789012345678.123456789',
        ratio: 0.1,
        not_a_number: 'NaN',
        flag: true,
        nothing: null,
        list: [1, 2, null],
        amounts: ['340282366920938463463374607431768211455', '7'],
        nested: { addr: '0x0102', at: '2024-01-01 00:00:00.000 UTC', n: ['1'] },
        map: { a: 1, b: 2 },
        // Unnamed row fields (DuckDB names them all "") keyed by position, as Trino's clients do.
        unnamed: { field0: 1, field1: 'x' },
        zipped: [
          { field0: 1, field1: 'a' },
          { field0: 2, field1: null },
        ],
        unnamed_huge: [{ field0: '1', field1: 'y' }],
      },
    ]);
    const typeOf = (name: string) => duneSqlTypeName(columns.find((column) => column.name === name)!.type);
    expect([typeOf('unnamed'), typeOf('zipped'), typeOf('unnamed_huge')]).toEqual([
      'row(integer, varchar)',
      'array(row(integer, varchar))',
      'array(row(int256, varchar))',
    ]);
    expect(columns.find((column) => column.name === 'uint256_max')?.type).toBe('UHUGEINT');
    expect(columns.find((column) => column.name === 'small_sum')?.type).toBe('HUGEINT');
  });

  it('filters binary columns by their 0x hex text', async () => {
    const hit = await store.readPage({
      executionId,
      limit: 1,
      offset: 0,
      columns: ['data'],
      filters: parseResultFilter("data = '0x00ABCDEF'"),
    });
    expect(hit.rows).toEqual([{ data: '0x00abcdef' }]);
    const prefix = await store.readPage({
      executionId,
      limit: 1,
      offset: 0,
      filters: parseResultFilter("data LIKE '0x00ab%'"),
    });
    expect(prefix.totalRowCount).toBe(1);
  });

  it('stores uint256 values of all magnitudes exactly', async () => {
    const request = runRequest(`
      SELECT v::UHUGEINT AS v FROM (VALUES ('0'), ('9007199254740991'), ('9007199254740992'),
        ('170141183460469231731687303715884105727'), ('170141183460469231731687303715884105728'),
        ('340282366920938463463374607431768211455')) t(v)`);
    await engine.run(request);
    const { rows } = await store.readPage({ executionId: request.executionId, limit: 10, offset: 0 });
    // Always exact decimal strings, as Dune renders uint256.
    expect(rows.map((row) => row.v)).toEqual([
      '0',
      '9007199254740991',
      '9007199254740992',
      '170141183460469231731687303715884105727',
      '170141183460469231731687303715884105728',
      '340282366920938463463374607431768211455',
    ]);
  });
});

describe('interval columns (stored as the text Trino writes)', () => {
  let executionId: string;

  beforeAll(async () => {
    // Hours from -30 to 69: as text, '10 …' sorts before '2 …' and '-1 …' after '-0 …'.
    const request = runRequest(`
      SELECT h, INTERVAL (h) HOUR AS took, INTERVAL (h) MONTH AS months
      FROM range(-30, 70) t(h)`);
    await engine.run(request);
    executionId = request.executionId;
  });

  const read = (request: Partial<ResultPageRequest>) =>
    store.readPage({ executionId, limit: 1000, offset: 0, ...request });

  it('sorts by the interval, not by its text', async () => {
    const ascending = await read({ sortBy: parseSortBy('took'), columns: ['h'] });
    expect(ascending.rows.map((row) => row.h)).toEqual(Array.from({ length: 100 }, (_, i) => i - 30));
    const descending = await read({ sortBy: parseSortBy('months desc'), columns: ['h', 'months'], limit: 2 });
    expect(descending.rows).toEqual([
      { h: 69, months: '5-9' },
      { h: 68, months: '5-8' },
    ]);
  });

  it('filters by intervals written as Trino writes them or as DuckDB reads them', async () => {
    const overADay = await read({ filters: parseResultFilter("took > '1 00:00:00.000'"), columns: ['h'] });
    expect(overADay.rows.map((row) => row.h)).toEqual(Array.from({ length: 45 }, (_, i) => i + 25));
    // Without the milliseconds, as Trino also reads it.
    const noMillis = await read({ filters: parseResultFilter("took > '1 00:00:00'"), columns: ['h'] });
    expect(noMillis.rows).toEqual(overADay.rows);
    const negative = await read({ filters: parseResultFilter("took <= '-1 04:00:00.000'") });
    expect(negative.totalRowCount).toBe(3);
    expect(negative.rows.map((row) => row.took)).toEqual([
      '-1 06:00:00.000',
      '-1 05:00:00.000',
      '-1 04:00:00.000',
    ]);
    const years = await read({ filters: parseResultFilter("months >= '5-0' AND took < '3 hours'") });
    expect(years.totalRowCount).toBe(0);
    const inList = await read({ filters: parseResultFilter("months IN ('1-0', '-2-6')"), columns: ['h'] });
    expect(inList.rows.map((row) => row.h)).toEqual([-30, 12]);
    // LIKE still matches the text as shown.
    expect((await read({ filters: parseResultFilter("took LIKE '2 %'") })).totalRowCount).toBe(22);
  });

  it('rejects a filter value that is no interval with a clear error', async () => {
    expect(await badRequest(read({ filters: parseResultFilter("took > 'soon'") }))).toBe(
      "filters: 'soon' is not an interval day to second (column took); write days hours:minutes:seconds as results show them, in quotes, e.g. took > '1 02:00:00.000' (or '26 hours')",
    );
    expect(await badRequest(read({ filters: parseResultFilter('took > 5') }))).toMatch(
      /^filters: 5 is not an interval day to second \(column took\); write days hours:minutes:seconds/,
    );
  });
});

describe('CSV', () => {
  it('writes RFC 4180 text with a header, honouring columns and filters', async () => {
    const request = runRequest(`
      SELECT * FROM (VALUES (1, 'plain', '\\xAB'::BLOB, [1, 2]), (2, 'a,b "q"', NULL, NULL),
                            (3, 'line\nbreak', '\\x01'::BLOB, []), (4, '', NULL, NULL))
        t(id, label, data, list)`);
    await engine.run(request);
    const all = await store.readCsv({ executionId: request.executionId, limit: 10, offset: 0 });
    expect(all.csv).toBe(
      [
        'id,label,data,list',
        '1,plain,0xab,"[1,2]"',
        '2,"a,b ""q""",,',
        '3,"line\nbreak",0x01,[]',
        '4,"",,',
        '',
      ].join('\r\n'),
    );
    expect(all.rowCount).toBe(4);
    expect(all.totalRowCount).toBe(4);

    const some = await store.readCsv({
      executionId: request.executionId,
      limit: 1,
      offset: 0,
      columns: ['label'],
      filters: parseResultFilter('id >= 2'),
    });
    expect(some).toEqual({ csv: 'label\r\n"a,b ""q"""\r\n', rowCount: 1, totalRowCount: 3 });
  });
});

describe('stored files', () => {
  it('reports a missing or malformed execution as not found', async () => {
    await expect(
      store.readPage({ executionId: 'no-such-execution', limit: 1, offset: 0 }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      store.readCsv({ executionId: '../../etc/passwd', limit: 1, offset: 0 }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes a result file; later reads are not found; deleting again is fine', async () => {
    const request = runRequest('SELECT 1 AS x');
    await engine.run(request);
    await store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
    await store.delete(request.executionId);
    expect(existsSync(join(fixture.resultsDir, `${request.executionId}.parquet`))).toBe(false);
    await expect(
      store.readPage({ executionId: request.executionId, limit: 1, offset: 0 }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await store.delete(request.executionId);
  });
});

describe('a 5M-row result', () => {
  it('is stored and paged without materialising it', async () => {
    const request = runRequest('SELECT range AS i FROM range(5000000)');
    const result = await engine.run(request);
    expect(result.rowCount).toBe(5_000_000);
    const executionId = request.executionId;

    const tail = await store.readPage({ executionId, limit: 1000, offset: 4_999_990 });
    expect(tail.totalRowCount).toBe(5_000_000);
    expect(tail.rows.map((row) => row.i)).toEqual(Array.from({ length: 10 }, (_, k) => 4_999_990 + k));

    const filtered = await store.readPage({
      executionId,
      limit: 10,
      offset: 0,
      filters: parseResultFilter('i >= 4999995'),
    });
    expect(filtered.totalRowCount).toBe(5);

    const sorted = await store.readPage({ executionId, limit: 2, offset: 10, sortBy: parseSortBy('i desc') });
    expect(sorted.rows).toEqual([{ i: 4_999_989 }, { i: 4_999_988 }]);

    const sample = await store.readPage({ executionId, limit: 0, offset: 0, sampleCount: 10 });
    expect(sample.rows).toHaveLength(10);
  });
});
