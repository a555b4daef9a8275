import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailure } from '../../functions/core/engine';
import { DuckDbQueryEngine } from '../../functions/local/engine/query-engine';
import { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { RUNAWAY_SQL as RUNAWAY } from '../support/runaway-sql';
import { createEngineFixture, type EngineFixture, failureOf, runRequest } from './fixture';

let fixture: EngineFixture;
let engine: DuckDbQueryEngine;
let store: DuckDbResultStore;

beforeAll(async () => {
  fixture = await createEngineFixture({ sampleData: true });
  engine = new DuckDbQueryEngine({ warehousePath: fixture.warehousePath, resultsDir: fixture.resultsDir });
  store = new DuckDbResultStore({ resultsDir: fixture.resultsDir });
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
  await fixture?.cleanup();
});

async function filesFor(executionId: string): Promise<string[]> {
  const names = await readdir(fixture.resultsDir).catch(() => []);
  return names.filter((name) => name.startsWith(executionId));
}

describe('running a query over the sample data', () => {
  it('stores the result as Parquet and reads it back page by page', async () => {
    const sql = `
      SELECT block_time, project, token_pair, amount_usd, token_bought_amount_raw, tx_hash
      FROM dex.trades
      ORDER BY block_time, tx_hash, evt_index`;
    const request = runRequest(sql);
    const result = await engine.run(request);

    expect(result.columns).toEqual([
      { name: 'block_time', type: 'TIMESTAMP' },
      { name: 'project', type: 'VARCHAR' },
      { name: 'token_pair', type: 'VARCHAR' },
      { name: 'amount_usd', type: 'DOUBLE' },
      { name: 'token_bought_amount_raw', type: 'UHUGEINT' },
      { name: 'tx_hash', type: 'BLOB' },
    ]);
    expect(result.rowCount).toBeGreaterThan(100);
    expect(result.resultBytes).toBeGreaterThan(0);
    expect(result.engineMillis).toBeGreaterThanOrEqual(0);
    expect(await filesFor(request.executionId)).toEqual([`${request.executionId}.parquet`]);

    const pageSize = 40;
    const rows: Record<string, unknown>[] = [];
    for (let offset = 0; offset < result.rowCount; offset += pageSize) {
      const page = await store.readPage({ executionId: request.executionId, limit: pageSize, offset });
      expect(page.totalRowCount).toBe(result.rowCount);
      expect(page.columns).toEqual(result.columns);
      rows.push(...page.rows);
    }
    expect(rows).toHaveLength(result.rowCount);
    const times = rows.map((row) => row.block_time as string);
    expect(times[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/);
    expect([...times].sort()).toEqual(times);
    for (const row of rows) {
      expect(
        typeof row.token_bought_amount_raw === 'string' || Number.isSafeInteger(row.token_bought_amount_raw),
      ).toBe(true);
    }
    // varbinary hashes come back as lowercase 0x hex.
    expect(rows[0]!.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it.each([
    ['WITH t AS (SELECT 1 AS x) SELECT * FROM t', 1],
    ['VALUES (1), (2), (3)', 3],
    ['SELECT * FROM dex.trades LIMIT 5', 5],
    ['SELECT 1 AS x;', 1],
    ['(SELECT 1) UNION ALL (SELECT 2)', 2],
    ['SELECT x FROM (VALUES (1), (2)) AS t (x) INTERSECT SELECT 2', 1],
    ['SELECT x FROM unnest(sequence(1, 4)) AS t (x) EXCEPT SELECT 4', 3],
    // Catalog statements list the catalog (information-schema.ts): a table's columns, a schema's tables.
    ['DESCRIBE dex.trades', 24],
    ['SHOW TABLES FROM ethereum', 4],
    // Answered from the function catalog (show-functions.ts).
    ["SHOW FUNCTIONS LIKE 'varbinary\\_to\\_uint256' ESCAPE '\\'", 1],
  ])('accepts query forms: %s', async (sql, rows) => {
    const result = await engine.run(runRequest(sql));
    expect(result.rowCount).toBe(rows);
  });

  it.each([
    ['SHOW CREATE TABLE dex.trades', 'SHOW'],
    ['EXPLAIN SELECT 1', 'EXPLAIN'],
  ])('refuses statements that are not queries in DuneSQL: %s', async (sql, kind) => {
    const failure = await failureOf(engine.run(runRequest(sql)));
    expect(failure.type).toBe('permission_denied');
    expect(failure.message).toBe(
      `Only read-only queries can run here (SELECT, WITH ... SELECT, VALUES, set operations); ${kind} statements are not allowed.`,
    );
  });

  it('gives Trino’s answers where DuckDB would differ silently', async () => {
    const request = runRequest(
      "SELECT 7 / 2 AS q, to_hex(0xc0ffee) AS h, count(*), date_trunc('month', date '2024-02-10') AS m, " +
        'sum(cast(170141183460469231731687303715884105727 AS uint256)) AS exact, ' +
        "to_hex(md5(to_utf8('abc'))) AS md5_hex, cardinality(repeat('x', 3)) AS r, " +
        "array_join(sequence(1, 3), '-') AS s FROM (VALUES 1, 2) AS t (x)",
    );
    const result = await engine.run(request);
    expect(result.columns).toEqual([
      { name: 'q', type: 'INTEGER' },
      { name: 'h', type: 'VARCHAR' },
      { name: '_col2', type: 'BIGINT' },
      { name: 'm', type: 'DATE' },
      { name: 'exact', type: 'UHUGEINT' },
      { name: 'md5_hex', type: 'VARCHAR' },
      { name: 'r', type: 'BIGINT' },
      { name: 's', type: 'VARCHAR' },
    ]);
    const page = await store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
    expect(page.rows).toEqual([
      {
        q: 3,
        h: 'C0FFEE',
        _col2: 2,
        m: '2024-02-01',
        exact: '340282366920938463463374607431768211454',
        md5_hex: '900150983CD24FB0D6963F7D28E17F72',
        r: 3,
        s: '1-2-3',
      },
    ]);
  });

  it('makes duplicate column names unique, as stored', async () => {
    const request = runRequest('SELECT 1 AS a, 2 AS a, 3 AS A');
    const result = await engine.run(request);
    expect(result.columns.map((column) => column.name)).toEqual(['a', 'a_1', 'A_2']);
    const page = await store.readPage({ executionId: request.executionId, limit: 10, offset: 0 });
    expect(page.rows).toEqual([{ a: 1, a_1: 2, A_2: 3 }]);
  });
});

describe('checking SQL without running it', () => {
  it('gives the failure a run would start with, positioned as written, and runs nothing', async () => {
    const before = await readdir(fixture.resultsDir).catch(() => []);
    expect(await engine.check({ sql: 'SELECT 1 AS one,\n  list_resize(array[1], 2) AS l' })).toMatchObject({
      type: 'syntax_error',
      message: expect.stringMatching(/^Function 'list_resize' not registered/),
      position: { line: 2, column: 3 },
    });
    expect(await engine.check({ sql: '   ' })).toMatchObject({
      type: 'syntax_error',
      message: 'The query is empty.',
    });
    expect(await engine.check({ sql: 'SELECT count(*) AS n FROM dex.trades' })).toBeUndefined();
    expect(await readdir(fixture.resultsDir).catch(() => [])).toEqual(before);
  });
});

describe('concurrent runs', () => {
  it('run side by side, each in its own instance over the same read-only warehouse', async () => {
    const requests = Array.from({ length: 6 }, (_, k) =>
      runRequest(`SELECT ${k} AS k, count(*) AS trades FROM dex.trades`, {
        tier: k % 2 ? 'large' : 'medium',
      }),
    );
    const results = await Promise.all(requests.map((request) => engine.run(request)));
    expect(results.map((result) => result.rowCount)).toEqual([1, 1, 1, 1, 1, 1]);
    for (const [k, request] of requests.entries()) {
      const { rows } = await store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
      expect(rows[0]?.k).toBe(k);
    }
  });
});

describe('performance tiers', () => {
  it('gives a large run more threads and memory than a medium one', async () => {
    // The sandbox's own settings, read with DuckDB's current_setting().
    const raw = new DuckDbQueryEngine({
      warehousePath: fixture.warehousePath,
      resultsDir: fixture.resultsDir,
      rawDuckDbForEngineTests: true,
    });
    const sql = "SELECT current_setting('threads') AS threads, current_setting('memory_limit') AS memory";
    const medium = runRequest(sql, { tier: 'medium' });
    const large = runRequest(sql, { tier: 'large' });
    await raw.run(medium);
    await raw.run(large);
    await raw.close();
    const [mediumRow] = (await store.readPage({ executionId: medium.executionId, limit: 1, offset: 0 })).rows;
    const [largeRow] = (await store.readPage({ executionId: large.executionId, limit: 1, offset: 0 })).rows;
    expect(mediumRow?.threads).toBe(1);
    expect(largeRow?.threads).toBe(2);
    expect(mediumRow?.memory).toMatch(/^(9\d\d\.\d MiB|1\.\d GiB)$/);
    expect(largeRow?.memory).toMatch(/^1\.\d GiB$/);
  });

  it('takes tier limits from the options', async () => {
    const custom = new DuckDbQueryEngine({
      warehousePath: fixture.warehousePath,
      resultsDir: fixture.resultsDir,
      tiers: { large: { threads: 3, memoryLimit: '300MB' } },
      rawDuckDbForEngineTests: true,
    });
    const request = runRequest("SELECT current_setting('threads') AS threads", { tier: 'large' });
    await custom.run(request);
    await custom.close();
    const [row] = (await store.readPage({ executionId: request.executionId, limit: 1, offset: 0 })).rows;
    expect(row?.threads).toBe(3);
  });
});

describe('timeouts and cancellation', () => {
  it('interrupts a run past its time limit and fails it as timeout', async () => {
    const request = runRequest(RUNAWAY, { timeoutMs: 300 });
    const started = Date.now();
    const failure = await failureOf(engine.run(request));
    expect(failure.type).toBe('timeout');
    expect(failure.message).toMatch(/^Query exceeded the 300 ms limit of the medium tier and was stopped/);
    expect(failure.retryable).toBe(false);
    // Engine time is measured in the engine process, from the query's start; the limit's clock
    // starts at dispatch, a few milliseconds earlier (one CI run measured 289 ms).
    expect(failure.engineMillis).toBeGreaterThanOrEqual(200);
    // ...and ends there: the time the engine takes to stop (here a query that does not heed the
    // interrupt, killed after the grace) is not charged.
    expect(failure.engineMillis).toBeLessThanOrEqual(700);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await filesFor(request.executionId)).toEqual([]);
    expect(await readdir(join(fixture.resultsDir, '.spill')).catch(() => [])).not.toContain(
      request.executionId,
    );
  });

  it('names the limit in seconds or minutes', async () => {
    const failure = await failureOf(engine.run(runRequest(RUNAWAY, { timeoutMs: 1500, tier: 'large' })));
    expect(failure.message).toMatch(
      /^Query exceeded the 1\.5 s limit of the large tier and was stopped; .*\.$/,
    );
    expect(failure.message).not.toMatch(/large tier\.$/);
  });

  it('interrupts a run when its signal aborts and fails it as cancelled', async () => {
    const controller = new AbortController();
    const request = runRequest(RUNAWAY, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const failure = await failureOf(engine.run(request));
    expect(failure.type).toBe('cancelled');
    expect(failure.message).toBe('The query was cancelled.');
    expect(await filesFor(request.executionId)).toEqual([]);
  });

  it('charges a cancelled run its engine time until the cancel, not the stopping after it', async () => {
    // An engine process that does not hear the stop at once (busy setting up the run, or on a
    // loaded machine) is killed after the grace, up to half a second after the cancel: that time
    // was charged too (one run measured 184 ms charged for 16 ms between start and cancel).
    const own = new DuckDbQueryEngine({
      warehousePath: fixture.warehousePath,
      resultsDir: fixture.resultsDir,
      pool: { size: 1 },
    });
    try {
      for (let round = 0; round < 2; round++) {
        const controller = new AbortController();
        const request = runRequest(RUNAWAY, { signal: controller.signal });
        const submitted = performance.now();
        const ended = failureOf(own.run(request));
        while (own.pool.stateOf(request.executionId) !== 'running') {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.abort();
        const cancelledAfter = performance.now() - submitted;
        const failure = await ended;
        expect(failure.type).toBe('cancelled');
        // It started after its submit: it cannot have run longer than submit → cancel.
        expect(failure.engineMillis).toBeLessThanOrEqual(Math.ceil(cancelledAfter) + 2);
      }
    } finally {
      await own.close();
    }
  });

  it('does not start a run whose signal already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const failure = await failureOf(engine.run(runRequest('SELECT 1', { signal: controller.signal })));
    expect(failure.type).toBe('cancelled');
  });

  it('stops runs in flight when the engine closes, and refuses new ones', async () => {
    const closing = new DuckDbQueryEngine({
      warehousePath: fixture.warehousePath,
      resultsDir: fixture.resultsDir,
    });
    const running = failureOf(closing.run(runRequest(RUNAWAY)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await closing.close();
    expect((await running).type).toBe('engine_unavailable');
    expect((await failureOf(closing.run(runRequest('SELECT 1')))).type).toBe('engine_unavailable');
  });
});

describe('errors', () => {
  // Users write DuneSQL: syntax errors and unknown tables and columns come from the translation,
  // engine errors from DuckDB, and every position is in the SQL the user wrote, not in the
  // translated text.
  it.each([
    ['SELEC 1', 'syntax_error', /^Syntax error: /, { line: 1, column: 7 }],
    [
      'SELECT 1\nFROM dex.trade',
      'execution_error',
      /^Table 'dex\.trade' does not exist\. Did you mean dex\.trades\?/,
      { line: 2, column: 6 },
    ],
    [
      'SELECT project,\n       amount_us\nFROM dex.trades',
      'execution_error',
      /^Column 'amount_us' cannot be resolved\. Did you mean amount_usd\?/,
      { line: 2, column: 8 },
    ],
    // Past UNNEST the translation does not know the columns: DuckDB's binder says it.
    [
      'SELECT project,\n       amount_us\nFROM dex.trades CROSS JOIN unnest(array[1]) AS u (x)',
      'execution_error',
      /^Binder Error: Referenced column "amount_us" not found/,
      { line: 2, column: 8 },
    ],
    [
      "SELECT 'x' AS a,\n  cast('abc' AS date) AS b",
      'execution_error',
      /^Value cannot be cast to date: abc \(line 2, column 3\)$/,
      { line: 2, column: 3 },
    ],
    // DuckDB counts UTF-8 bytes; positions are reported in characters.
    [
      "SELECT 'é日本' AS a, nope FROM unnest(array[1]) AS u (x)",
      'execution_error',
      /^Binder Error: Referenced column "nope"/,
      { line: 1, column: 20 },
    ],
    ['SELECT 1 /* open', 'syntax_error', /^Syntax error: unterminated \/\* comment/, { line: 1, column: 10 }],
    ["SELECT 'open", 'syntax_error', /^Syntax error: Unterminated string/, { line: 1, column: 8 }],
    // The translation rewrote line 2 (0x… literal, helper macro): the column is still the user's.
    [
      'SELECT block_time,\n  varbinary_to_uint256(0x01) + nope\nFROM dex.trades CROSS JOIN unnest(array[1]) AS u (x)',
      'execution_error',
      /^Binder Error: Referenced column "nope" not found/,
      { line: 2, column: 32 },
    ],
    [
      "SELECT block_time,\n  format_datetime(block_time, 'yyyy QQ') AS q FROM dex.trades",
      'execution_error',
      /^format_datetime\(\) format 'yyyy QQ' uses a pattern letter .* use the common letters/,
      { line: 2, column: 3 },
    ],
  ] as const)('maps %j with its position', async (sql, type, message, position) => {
    const failure = await failureOf(engine.run(runRequest(sql)));
    expect(failure.type).toBe(type);
    expect(failure.message).toMatch(message);
    expect(failure.message).toContain(`(line ${position.line}, column ${position.column})`);
    expect(failure.position).toEqual(position);
  });

  // The common run-time errors read as Trino (and Athena) words them, without DuckDB's label.
  it.each([
    ["SELECT cast('abc' AS double) AS x", /^Cannot cast 'abc' to DOUBLE \(line 1, column 8\)$/],
    ["SELECT cast('boom' AS integer) AS x", /^Cannot cast 'boom' to INT$/],
    ['SELECT cast(300 AS tinyint) AS x', /^Out of range for tinyint: 300 \(line 1, column 8\)$/],
    ['SELECT 9223372036854775807 + 1 AS x', /^bigint addition overflow: 9223372036854775807 \+ 1$/],
    ['SELECT 1 / 0 AS x', /^Division by zero$/],
    ["SELECT cast('2024-13-45' AS timestamp) AS x", /^Value cannot be cast to timestamp: 2024-13-45 /],
    [
      'SELECT (SELECT x FROM unnest(array[1, 2]) AS u (x)) AS y',
      /^Scalar sub-query has returned multiple rows$/,
    ],
    ['SELECT array[1, 2][5] AS x', /^Array subscript must be less than or equal to array length: 5 > 2$/],
    ["SELECT json_parse('{bad') AS x", /^Cannot convert value to JSON: '\{bad'$/],
    [
      "SELECT cast('abc' AS decimal(10, 2)) AS x",
      /^Cannot cast VARCHAR 'abc' to DECIMAL\(10, 2\)\. Value is not a number\. \(line 1, column 8\)$/,
    ],
    ["SELECT from_hex('zz') AS x", /^not a hexadecimal digit: "z" = 122$/],
    // Not among them: DuckDB's words, with its label.
    ["SELECT regexp_like('a', '(') AS x", /^Invalid Input Error: /],
  ] as const)('words %j as Trino does', async (sql, message) => {
    const failure = await failureOf(engine.run(runRequest(sql)));
    expect(failure.type).toBe('execution_error');
    expect(failure.message).toMatch(message);
  });

  it('fails a run that outgrows the tier memory as resource_exhausted', async () => {
    const small = new DuckDbQueryEngine({
      warehousePath: fixture.warehousePath,
      resultsDir: fixture.resultsDir,
      tiers: { medium: { threads: 1, memoryLimit: '64MB' } },
      maxSpillSize: '0MB',
    });
    try {
      const failure = await failureOf(
        small.run(
          runRequest(
            "SELECT length(array_join(array_agg(a.x * b.y), ',')) AS big " +
              'FROM unnest(sequence(1, 10000)) AS a (x) CROSS JOIN unnest(sequence(1, 3000)) AS b (y)',
          ),
        ),
      );
      expect(failure.type).toBe('resource_exhausted');
      expect(failure.retryable).toBe(true);
      expect(failure.message).toMatch(/^Out of Memory Error: .*64MB memory of the medium tier/);
    } finally {
      await small.close();
    }
  });

  it.each([
    ['', 'The query is empty.'],
    ['   \n ', 'The query is empty.'],
    ['-- nothing here', 'The query contains no SQL statement.'],
    [';', 'The query contains no SQL statement.'],
  ])('rejects SQL without a statement: %j', async (sql, message) => {
    const failure = await failureOf(engine.run(runRequest(sql)));
    expect(failure.type).toBe('syntax_error');
    expect(failure.message).toBe(message);
  });

  it('rejects query parameters', async () => {
    const failure = await failureOf(engine.run(runRequest('SELECT ? AS x')));
    expect(failure.type).toBe('syntax_error');
    expect(failure.message).toMatch(/parameters .* are not supported/);
  });

  it('says which helper failed by the name the user wrote', async () => {
    const failure = await failureOf(engine.run(runRequest('SELECT varbinary_to_uint256(0x01, 2) AS n')));
    expect(failure).toBeInstanceOf(QueryFailure);
    expect(failure.type).toBe('execution_error');
    expect(failure.message).toMatch(/varbinary_to_uint256/);
    expect(failure.message).not.toMatch(/dunesql_/i);
  });
});
