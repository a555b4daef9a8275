import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbQueryEngine } from '../../functions/local/engine/query-engine';
import { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { createSandboxInstance, openSandbox, type Sandbox } from '../../functions/local/engine/sandbox';
import { createEngineFixture, type EngineFixture, failureOf, runRequest } from './fixture';

let fixture: EngineFixture;
let engine: DuckDbQueryEngine;
/** What users reach: DuneSQL, translated before it runs in the same sandbox. */
let dunesql: DuckDbQueryEngine;
/** A stored result of another execution, which no other run may read. */
let otherResultPath: string;

beforeAll(async () => {
  fixture = await createEngineFixture({ sampleData: false });
  // The sandbox is proven on raw DuckDB SQL: the sandbox, not the DuneSQL translator, is the
  // security boundary, so it must hold for anything DuckDB would run.
  engine = new DuckDbQueryEngine({
    warehousePath: fixture.warehousePath,
    resultsDir: fixture.resultsDir,
    rawDuckDbForEngineTests: true,
  });
  dunesql = new DuckDbQueryEngine({ warehousePath: fixture.warehousePath, resultsDir: fixture.resultsDir });
  const other = runRequest("SELECT 'secret of account 2' AS secret", { accountId: 'account-2' });
  await engine.run(other);
  otherResultPath = join(fixture.resultsDir, `${other.executionId}.parquet`);
});

afterAll(async () => {
  await engine?.close();
  await dunesql?.close();
  await fixture?.cleanup();
});

async function refusal(sql: string) {
  return failureOf(engine.run(runRequest(sql)));
}

describe('user SQL cannot reach files, the network or extensions', () => {
  it.each([
    ["SELECT * FROM read_csv('/etc/passwd')", /Permission Error: Cannot access file "\/etc\/passwd"/],
    ["SELECT * FROM read_text('/etc/hostname')", /Permission Error: Cannot access file/],
    ["SELECT * FROM glob('/*')", /Permission Error: Cannot access file "\/\*"/],
    ["SELECT * FROM read_parquet('https://example.com/x.parquet')", /Permission Error/],
  ])('%s', async (sql, message) => {
    const failure = await refusal(sql);
    expect(failure.type).toBe('permission_denied');
    expect(failure.message).toMatch(message);
    expect(failure.position).toEqual({ line: 1, column: 15 });
  });

  it("cannot read another execution's stored result, by path or by glob", async () => {
    for (const sql of [
      `SELECT * FROM read_parquet('${otherResultPath}')`,
      `SELECT * FROM '${otherResultPath}'`,
      `SELECT * FROM read_parquet('${fixture.resultsDir}/*.parquet')`,
      `SELECT * FROM read_blob('${otherResultPath}')`,
    ]) {
      const failure = await refusal(sql);
      expect(failure.type, sql).toBe('permission_denied');
      expect(failure.message, sql).toMatch(/Permission Error: Cannot access file/);
    }
  });

  it.each([
    ["COPY (SELECT 1) TO '/tmp/escape.csv'", /Permission Error: Cannot access file "\/tmp\/escape.csv"/],
    ["EXPORT DATABASE '/tmp/escape-db'", /Permission Error: Cannot access file/],
    ["ATTACH '/tmp/escape.duckdb' AS escape", /ATTACH statements are not allowed/],
    ['DETACH warehouse', /DETACH statements are not allowed/],
    ['INSTALL httpfs', /INSTALL\/LOAD statements are not allowed/],
    ['LOAD httpfs', /INSTALL\/LOAD statements are not allowed/],
  ])('refuses %s', async (sql, message) => {
    const failure = await refusal(sql);
    expect(failure.type).toBe('permission_denied');
    expect(failure.message).toMatch(message);
  });
});

describe('user SQL cannot loosen the limits', () => {
  it.each([
    'SET threads = 64',
    'SET enable_external_access = true',
    "SET memory_limit = '100GB'",
    'SET lock_configuration = false',
    'RESET threads',
    'PRAGMA threads = 4',
  ])('refuses %s', async (sql) => {
    const failure = await refusal(sql);
    expect(failure.type).toBe('permission_denied');
    expect(failure.message).toMatch(
      /^Only read-only queries can run here .*SET\/RESET statements are not allowed\.$/,
    );
  });

  it('refuses PRAGMA and CALL forms that bind like a query', async () => {
    for (const sql of ['PRAGMA version', 'CALL pragma_version()']) {
      const failure = await refusal(sql);
      expect(failure.type, sql).toBe('permission_denied');
      expect(failure.message, sql).toMatch(/are not allowed/);
    }
  });
});

describe('user SQL cannot change the base data', () => {
  it.each([
    ['CREATE TABLE dex.evil AS SELECT 1 AS x', 'CREATE'],
    ["INSERT INTO dex.trades (project) VALUES ('evil')", 'INSERT'],
    ["UPDATE dex.trades SET project = 'evil'", 'UPDATE'],
    ['DELETE FROM dex.trades', 'DELETE'],
    ['DROP TABLE dex.trades', 'DROP'],
    ['ALTER TABLE dex.trades ADD COLUMN x INTEGER', 'ALTER'],
    ['CREATE TEMP TABLE scratch AS SELECT 1', 'CREATE'],
    ['CREATE MACRO evil(x) AS x', 'CREATE'],
  ])('refuses %s', async (sql, kind) => {
    const failure = await refusal(sql);
    expect(failure.type).toBe('permission_denied');
    expect(failure.message).toContain(`${kind} statements are not allowed`);
  });

  it('runs exactly one statement: a second one is an error and never runs', async () => {
    const failure = await refusal('SELECT 1; DROP TABLE dex.trades');
    expect(failure.type).toBe('syntax_error');
    expect(failure.message).toMatch(/Only one statement can run per query, but this SQL has 2 statements/);
    const stillThere = await engine.run(runRequest('SELECT count(*) AS n FROM dex.trades'));
    expect(stillThere.rowCount).toBe(1);
  });

  it('allows a trailing semicolon (and comments) after the one statement', async () => {
    const result = await engine.run(runRequest('SELECT 1 AS one; -- done\n'));
    expect(result.rowCount).toBe(1);
  });
});

describe('DuneSQL, what users send, meets the same sandbox', () => {
  it.each([
    "SELECT * FROM read_csv('/etc/passwd')",
    `SELECT * FROM read_parquet('${'<other result>'}')`,
    "SELECT * FROM glob('/*')",
  ])('refuses %s before it runs: DuckDB’s file functions are not DuneSQL', async (template) => {
    const sql = template.replace('<other result>', otherResultPath);
    const failure = await failureOf(dunesql.run(runRequest(sql)));
    // As Athena would: the sandbox (proven above on raw DuckDB SQL) is never asked.
    expect(failure.type).toBe('syntax_error');
    expect(failure.message).toMatch(/^Function '(read_csv|read_parquet|glob)' not registered/);
    expect(failure.position).toEqual({ line: 1, column: 15 });
  });

  it.each([
    ["COPY (SELECT 1) TO '/tmp/escape.csv'", 'COPY'],
    ["ATTACH '/tmp/escape.duckdb' AS escape", 'ATTACH'],
    ['INSTALL httpfs', 'INSTALL'],
    ['SET SESSION query_max_run_time = 1', 'SET'],
    ['PRAGMA threads = 4', 'PRAGMA'],
    ['CALL pragma_version()', 'CALL'],
    ['CREATE TABLE dex.evil AS SELECT 1 AS x', 'CREATE'],
    ["INSERT INTO dex.trades (project) VALUES ('evil')", 'INSERT'],
    ['DROP TABLE dex.trades', 'DROP'],
  ])('refuses %s before anything runs', async (sql, kind) => {
    const failure = await failureOf(dunesql.run(runRequest(sql)));
    expect(failure.type).toBe('permission_denied');
    expect(failure.message).toContain(`${kind} statements are not allowed`);
  });

  it('cannot loosen the session the translation set up (its settings are locked with the rest)', async () => {
    const failure = await failureOf(
      dunesql.run(runRequest("SELECT * FROM query('SET integer_division = false')")),
    );
    expect(failure.type).toBe('syntax_error');
    expect(failure.message).toMatch(/^Function 'query' not registered/);
    const request = runRequest('SELECT 7 / 2 AS q');
    await dunesql.run(request);
    const page = await new DuckDbResultStore({ resultsDir: fixture.resultsDir }).readPage({
      executionId: request.executionId,
      limit: 1,
      offset: 0,
    });
    expect(page.rows).toEqual([{ q: 3 }]);
  });
});

describe('refusals leave nothing behind', () => {
  it('writes no result file for refused or failed statements', async () => {
    const before = new Set(await readdir(fixture.resultsDir));
    const failing = runRequest("SELECT * FROM read_csv('/etc/passwd')");
    await failureOf(engine.run(failing));
    const after = await readdir(fixture.resultsDir);
    expect(after.filter((name) => !before.has(name))).toEqual([]);
    expect(after.some((name) => name.startsWith(failing.executionId))).toBe(false);
  });
});

describe('the sandbox configuration itself refuses (not the statement check)', () => {
  let sandbox: Sandbox;
  let allowedPath: string;

  beforeAll(async () => {
    allowedPath = join(fixture.dir, 'allowed.parquet');
    sandbox = await openSandbox({
      databasePath: fixture.warehousePath,
      limits: { threads: 1, memoryLimit: '256MB' },
      allowedPaths: [allowedPath],
    });
  });

  afterAll(() => sandbox?.close());

  async function rawError(sql: string): Promise<string> {
    try {
      await sandbox.connection.run(sql);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`expected ${sql} to fail`);
  }

  it('reports the locked-down settings', async () => {
    const reader = await sandbox.connection.runAndReadAll(`
      SELECT current_setting('threads')::VARCHAR, current_setting('enable_external_access')::VARCHAR,
             current_setting('lock_configuration')::VARCHAR, current_setting('autoload_known_extensions')::VARCHAR,
             current_setting('autoinstall_known_extensions')::VARCHAR, current_setting('access_mode')::VARCHAR`);
    expect(reader.getRows()[0]).toEqual(['1', 'false', 'true', 'false', 'false', 'read_only']);
  });

  it("shows no setting naming the host's user or home directory", async () => {
    const reader = await sandbox.connection.runAndReadAll(`
      SELECT name, value FROM duckdb_settings()
      WHERE name IN ('secret_directory', 'home_directory', 'extension_directory', 'allow_persistent_secrets')
      ORDER BY name`);
    expect(reader.getRows()).toEqual([
      ['allow_persistent_secrets', 'false'],
      ['extension_directory', ''],
      ['home_directory', ''],
      ['secret_directory', 'no-persistent-secrets'],
    ]);
  });

  it.each([
    'SET threads = 64',
    'SET enable_external_access = true',
    "SET memory_limit = '100GB'",
    "SET allowed_directories = ['/']",
    'SET autoload_known_extensions = true',
    'SET lock_configuration = false',
    'RESET threads',
    'PRAGMA threads = 4',
  ])('%s fails: the configuration is locked', async (sql) => {
    expect(await rawError(sql)).toMatch(
      /configuration has been locked|Cannot change allowed_\w+ when enable_external_access is disabled/,
    );
  });

  it.each([
    ["COPY (SELECT 1) TO '/tmp/escape.parquet'", /Permission Error: Cannot access file/],
    ["ATTACH '/tmp/escape.duckdb' AS escape", /Permission Error: Cannot access file/],
    ['INSTALL httpfs', /Permission Error/],
    ['LOAD httpfs', /Permission Error/],
    ["SELECT * FROM read_csv('/etc/passwd')", /Permission Error/],
  ])('%s fails: external access is off', async (sql, message) => {
    expect(await rawError(sql)).toMatch(message);
  });

  it.each([
    'CREATE TABLE dex.evil AS SELECT 1',
    "INSERT INTO dex.trades (project) VALUES ('evil')",
    'DROP TABLE dex.trades',
  ])('%s fails: the warehouse is read-only', async (sql) => {
    expect(await rawError(sql)).toMatch(/read-only mode/);
  });

  it('writes only to the one allowed path', async () => {
    await sandbox.connection.run(
      `COPY (SELECT 42 AS x) TO '${allowedPath}' (FORMAT parquet, USE_TMP_FILE false)`,
    );
    expect(await rawError(`COPY (SELECT 42 AS x) TO '${allowedPath}.other' (FORMAT parquet)`)).toMatch(
      /Permission Error/,
    );
  });
});

describe("a pre-created instance (the engine process makes the next run's while idle)", () => {
  it("is locked down with the run's own limits, and nothing of one run reaches the next", async () => {
    const spill = join(fixture.dir, 'spill-pre-created');
    const first = await openSandbox(
      {
        databasePath: fixture.warehousePath,
        limits: { threads: 2, memoryLimit: '300MB' },
        spillDirectory: spill,
        maxSpillSize: '1GB',
        // A run's session setup (a translation's helper macros) lives in its instance only.
        prepare: ['CREATE TEMP MACRO leaked_helper(x) AS x + 1'],
      },
      createSandboxInstance(fixture.warehousePath),
    );
    const settings = await first.connection.runAndReadAll(`
      SELECT current_setting('threads')::VARCHAR, current_setting('memory_limit')::VARCHAR,
             current_setting('temp_directory')::VARCHAR, current_setting('enable_external_access')::VARCHAR,
             current_setting('lock_configuration')::VARCHAR, current_setting('access_mode')::VARCHAR,
             leaked_helper(1)::VARCHAR`);
    expect(settings.getRows()[0]).toEqual(['2', '286.1 MiB', spill, 'false', 'true', 'read_only', '2']);
    await expect(first.connection.run("SET memory_limit = '100GB'")).rejects.toThrow(/locked/);
    first.close();

    // The next run gets an instance of its own: the macro and the limits of the first are gone.
    const second = await openSandbox(
      { databasePath: fixture.warehousePath, limits: { threads: 1, memoryLimit: '256MB' } },
      createSandboxInstance(fixture.warehousePath),
    );
    const next = await second.connection.runAndReadAll(
      "SELECT current_setting('threads')::VARCHAR, current_setting('temp_directory')::VARCHAR",
    );
    expect(next.getRows()[0]).toEqual(['1', '']);
    await expect(second.connection.run('SELECT leaked_helper(1)')).rejects.toThrow(/leaked_helper/);
    second.close();
  });
});
