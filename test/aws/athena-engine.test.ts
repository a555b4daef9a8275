import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  type QueryExecution,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-athena';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type AthenaEngineOptions, AthenaQueryEngine } from '../../functions/aws/athena/athena-engine';
import { AthenaQueries } from '../../functions/aws/athena/athena-queries';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { viewVersionTable } from '../../functions/aws/catalog/view-versions';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import { runCredits } from '../../functions/core/credits';
import { type EngineRun, type EngineSubmitRequest, QueryFailure } from '../../functions/core/engine';
import { RESULT_LIMITS } from '../../functions/core/result-limits';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { translate } from '../../functions/dunesql';
import { resultColumnsAnswer } from '../support/athena-answers';
import { mockS3Objects } from '../support/s3-objects';

const athena = mockClient(AthenaClient);
const s3 = mockS3Objects();
const QUERY_ID = '5e2b1c7d-9a41-4f0e-8d3b-61c2a4f7e9b0';
const EXECUTION_ID = '01HKZJ2683PHF9Q9PHHQ8FW4Q1';
const SUBMITTED = new Date('2026-11-23T20:00:00Z');
const OUTPUT = `s3://svc-results/athena/medium/${QUERY_ID}.csv`;

let now = new Date(SUBMITTED.getTime() + 5_000);
const engine = (options: AthenaEngineOptions = {}) =>
  new AthenaQueryEngine(
    new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
      workGroups: { medium: 'svc-medium', large: 'svc-large' },
    }),
    new S3ResultStore(s3.client, { bucket: 'svc-results' }),
    { now: () => now, ...options },
  );

const request = (sql: string, overrides: Partial<EngineSubmitRequest> = {}): EngineSubmitRequest => ({
  executionId: EXECUTION_ID,
  accountId: 'acct-1',
  sql,
  tier: 'medium',
  timeoutMs: 60_000,
  ...overrides,
});

/** GetQueryExecution as Athena answers it (API reference: QueryExecution, QueryExecutionStatus). */
function execution(state: string, extra: Partial<QueryExecution> = {}): { QueryExecution: QueryExecution } {
  return {
    QueryExecution: {
      QueryExecutionId: QUERY_ID,
      Query: 'SELECT 1',
      StatementType: 'DML',
      ResultConfiguration: { OutputLocation: OUTPUT },
      QueryExecutionContext: { Catalog: 'awsdatacatalog' },
      Status: { State: state as 'RUNNING', SubmissionDateTime: SUBMITTED },
      Statistics: {
        EngineExecutionTimeInMillis: 2500,
        DataScannedInBytes: 3 * 1024 ** 3,
        TotalExecutionTimeInMillis: 2700,
        QueryQueueTimeInMillis: 120,
        ResultReuseInformation: { ReusedPreviousResult: false },
      },
      WorkGroup: 'svc-medium',
      EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
      ...extra,
    },
  };
}

const columnsAnswer = {
  ResultSet: {
    Rows: [{ Data: [{ VarCharValue: 'block_number' }, { VarCharValue: 'project' }] }],
    ResultSetMetadata: {
      ColumnInfo: [
        {
          CatalogName: 'hive',
          Name: 'block_number',
          Label: 'block_number',
          Type: 'bigint',
          Precision: 19,
          Scale: 0,
        },
        {
          CatalogName: 'hive',
          Name: 'project',
          Label: 'project',
          Type: 'varchar',
          Precision: 2147483647,
          Scale: 0,
        },
      ],
    },
  },
};

/** GetQueryExecution of a query Athena failed for the user's SQL (ErrorCategory 2: user). */
function failedWithUserError(message: string) {
  return execution('FAILED', {
    Status: {
      State: 'FAILED',
      SubmissionDateTime: SUBMITTED,
      StateChangeReason: message,
      AthenaError: { ErrorCategory: 2, ErrorType: 1000, Retryable: false, ErrorMessage: message },
    },
  });
}

/** A view the account may read, at the version its run resolved. */
const relations = [
  {
    catalog: 'mv',
    schema: 'alice',
    name: 'result_flows',
    executionId: '01HKZJ0000000000000000000A',
    columns: [{ name: 'n', type: 'bigint' }],
  },
];

/** An engine whose materialized views' version tables live in the Glue database svc_views. */
const engineWithViews = () =>
  new AthenaQueryEngine(
    new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
      workGroups: { medium: 'svc-medium', large: 'svc-large' },
    }),
    new S3ResultStore(s3.client, { bucket: 'svc-results' }),
    { now: () => now, viewsDatabase: 'svc_views' },
  );

/** The athena calls made, in order, by command name. */
const calls = () => athena.calls().map((call) => call.args[0].constructor.name.replace(/Command$/, ''));

beforeEach(() => {
  athena.reset();
  s3.reset();
  now = new Date(SUBMITTED.getTime() + 5_000);
  athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: QUERY_ID });
});

describe('the Athena engine behind the QueryEngine port', () => {
  it('submits the Athena translation of the DuneSQL, polls it, then indexes the CSV result', async () => {
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce(execution('QUEUED'))
      .resolvesOnce(execution('RUNNING'))
      .resolves(execution('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves(columnsAnswer);
    // Athena's CSV: every value quoted, header first (docs/aws.md, "S3 result store").
    const csv = '"block_number","project"\n"1","uniswap"\n"2","curve"\n';
    s3.put('svc-results', `athena/medium/${QUERY_ID}.csv`, csv);
    const sql = 'SELECT block_number, project FROM dex.trades WHERE tx_from = 0xdeadbeef';
    const client = engine();
    const run = await client.submit(request(sql));
    expect(run).toEqual({
      executionId: EXECUTION_ID,
      engineRunId: QUERY_ID,
      tier: 'medium',
      timeoutMs: 60_000,
      sql,
    });
    const start = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input;
    expect(start.QueryString).toBe((await translate(sql, 'athena')).sql);
    expect(start.QueryString).toContain("X'deadbeef'");
    expect(start.WorkGroup).toBe('svc-medium');

    expect(await client.status(run)).toEqual({ state: 'queued' });
    expect(await client.status(run)).toEqual({ state: 'running' });
    const done = await client.status(run);
    expect(done).toEqual({
      state: 'succeeded',
      result: {
        columns: [
          { name: 'block_number', type: 'bigint' },
          { name: 'project', type: 'varchar' },
        ],
        rowCount: 2,
        // The stored result is Athena's CSV itself.
        resultBytes: Buffer.byteLength(csv),
        engineMillis: 2500,
        scannedBytes: 3 * 1024 ** 3,
        reusedResult: false,
      },
    });
    expect(calls()).toEqual([
      'StartQueryExecution',
      'GetQueryExecution',
      'GetQueryExecution',
      'GetQueryExecution',
      'GetQueryResults',
    ]);
    expect(s3.mock.commandCalls(GetObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'svc-results',
      Key: `athena/medium/${QUERY_ID}.csv`,
    });
    expect(s3.mock.commandCalls(PutObjectCommand)[0]!.args[0].input.Key).toBe(`results/${EXECUTION_ID}.json`);
    // Credits: 2.5 engine-seconds on medium + 3 GiB scanned.
    if (done.state === 'succeeded') expect(runCredits(done.result, 'medium')).toBe(5.5);
  });

  it('returns arrays, maps and rows as JSON: the run keeps their types, which status restores', async () => {
    athena.on(GetQueryExecutionCommand).resolves(execution('SUCCEEDED'));
    // Athena reports a column the translation made JSON text as varchar.
    athena.on(GetQueryResultsCommand).resolves(
      resultColumnsAnswer([
        ['id', 'varbinary'],
        ['outputs', 'varchar'],
      ]),
    );
    s3.put(
      'svc-results',
      `athena/medium/${QUERY_ID}.csv`,
      '"id","outputs"\n"ab 01","[{""index"":0,""value"":0.5,""address"":""bc1q"",""type"":""p2wpkh""}]"\n',
    );
    const client = engine({ tables: athenaTableSchemas(BASE_TABLES) });
    const type = 'array(row(index integer, value decimal(18,8), address varchar, type varchar))';
    const run = await client.submit(request('SELECT id, outputs FROM bitcoin.transactions'));
    expect(run.nestedColumns).toEqual([{ position: 1, type }]);
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toMatch(
      /^SELECT id, JSON_FORMAT\(CAST\(outputs AS JSON\)\) AS outputs FROM bitcoin.transactions$/,
    );
    const done = await client.status(run);
    expect(done.state === 'succeeded' && done.result.columns).toEqual([
      { name: 'id', type: 'varbinary' },
      { name: 'outputs', type },
    ]);
    const page = await new S3ResultStore(s3.client, { bucket: 'svc-results' }).readPage({
      executionId: EXECUTION_ID,
      limit: 10,
      offset: 0,
    });
    expect(page.rows).toEqual([
      { id: '0xab01', outputs: [{ index: 0, value: 0.5, address: 'bc1q', type: 'p2wpkh' }] },
    ]);
  });

  it('lets Athena reuse a result only for SQL that reads no view and no clock, and keeps a copy of its own', async () => {
    const reusing = new AthenaQueryEngine(
      new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
        workGroups: { medium: 'svc-medium', large: 'svc-large' },
      }),
      new S3ResultStore(s3.client, { bucket: 'svc-results' }),
      { now: () => now, viewsDatabase: 'svc_views', resultReuseMinutes: 60 },
    );
    const reuseOf = async (sql: string) => {
      athena.resetHistory();
      await reusing.submit(request(sql, { relations }));
      return athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.ResultReuseConfiguration;
    };
    expect(await reuseOf('SELECT project, count(*) FROM dex.trades GROUP BY 1')).toEqual({
      ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: 60 },
    });
    expect(
      await reuseOf("SELECT count(*) FROM dex.trades WHERE block_time > now() - interval '1' day"),
    ).toBeUndefined();
    expect(await reuseOf('SELECT rand() AS r')).toBeUndefined();
    expect(await reuseOf('SELECT n FROM mv.alice.result_flows')).toBeUndefined();

    // Athena answered from an earlier query's file: the execution's result is a copy, billed nothing.
    const earlier = 'athena/medium/0b6e1f00-earlier.csv';
    s3.put('svc-results', earlier, '"block_number","project"\n"7","balancer"\n');
    athena.on(GetQueryExecutionCommand).resolves(
      execution('SUCCEEDED', {
        ResultConfiguration: { OutputLocation: `s3://svc-results/${earlier}` },
        Statistics: {
          EngineExecutionTimeInMillis: 0,
          DataScannedInBytes: 0,
          ResultReuseInformation: { ReusedPreviousResult: true },
        },
      }),
    );
    athena.on(GetQueryResultsCommand).resolves(columnsAnswer);
    const run = await reusing.submit(request('SELECT block_number, project FROM dex.trades'));
    const done = await reusing.status(run);
    expect(done).toMatchObject({ state: 'succeeded', result: { rowCount: 1, reusedResult: true } });
    if (done.state === 'succeeded') expect(runCredits(done.result, 'medium')).toBe(0);
    expect(s3.mock.commandCalls(CopyObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'svc-results',
      Key: `results/${EXECUTION_ID}.csv`,
      CopySource: `svc-results/${earlier}`,
    });
    // Deleting this execution's result leaves the earlier query's file alone.
    await new S3ResultStore(s3.client, { bucket: 'svc-results' }).delete(EXECUTION_ID);
    expect(s3.has('svc-results', earlier)).toBe(true);
    expect(s3.has('svc-results', `results/${EXECUTION_ID}.csv`)).toBe(false);
  });

  it("refuses a result past the tier's row limit once Athena wrote it: deleted, not indexed, scan billed", async () => {
    athena.on(GetQueryExecutionCommand).resolves(execution('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves(columnsAnswer);
    const key = `athena/medium/${QUERY_ID}.csv`;
    s3.put('svc-results', key, '"block_number","project"\n"1","a"\n"2","b"\n"3","c"\n');
    s3.put('svc-results', `${key}.metadata`, 'metadata');
    const limited = new AthenaQueryEngine(
      new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
        workGroups: { medium: 'svc-medium', large: 'svc-large' },
      }),
      new S3ResultStore(s3.client, { bucket: 'svc-results' }),
      {
        now: () => now,
        limits: { ...RESULT_LIMITS, medium: { maxResultRows: 2, maxResultBytes: 1024 ** 3 } },
      },
    );
    const run = await limited.submit(request('SELECT block_number, project FROM dex.trades'));
    const status = await limited.status(run);
    expect(status.state).toBe('failed');
    const failure = status.state === 'failed' ? (status.failure as QueryFailure) : undefined;
    expect(failure).toMatchObject({
      type: 'resource_exhausted',
      engineMillis: 2500,
      scannedBytes: 3 * 1024 ** 3,
    });
    expect(failure?.message).toBe(
      'The result has more than 2 rows, the limit of the medium tier; aggregate (GROUP BY), filter to fewer rows, select fewer or narrower columns, or add a LIMIT.',
    );
    expect(s3.mock.commandCalls(PutObjectCommand)).toEqual([]); // no manifest
    expect(s3.mock.commandCalls(DeleteObjectsCommand)[0]!.args[0].input).toEqual({
      Bucket: 'svc-results',
      Delete: { Objects: [{ Key: key }, { Key: `${key}.metadata` }] },
    });
  });

  it('refuses a result past the storage quota left at submit without reading it (Content-Length)', async () => {
    athena.on(GetQueryExecutionCommand).resolves(execution('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves(columnsAnswer);
    s3.put(
      'svc-results',
      `athena/medium/${QUERY_ID}.csv`,
      `"block_number","project"\n${'"1","x"\n'.repeat(100)}`,
    );
    const client = engine();
    const quota = { storageBytesLeft: 200, storageBytesQuota: 1024 ** 3 };
    const run = await client.submit(request('SELECT block_number, project FROM dex.trades', quota));
    // The quota travels with the run (the execution record keeps it: engineRunOf).
    const status = await client.status({ ...run, ...quota });
    expect(status.state === 'failed' && status.failure.message).toBe(
      'The result grew past 200 bytes (what is left of your 1 GiB result storage quota) and was not stored; aggregate (GROUP BY), filter to fewer rows, select fewer or narrower columns, or add a LIMIT.',
    );
    expect(s3.mock.commandCalls(PutObjectCommand)).toEqual([]);
  });

  it('refuses to start a query when the storage quota is used up', async () => {
    const client = engine();
    await expect(
      client.submit(request('SELECT 1', { storageBytesLeft: 0, storageBytesQuota: 1024 ** 3 })),
    ).rejects.toMatchObject({
      type: 'resource_exhausted',
      message: expect.stringMatching(/quota is used up/),
    });
    expect(athena.commandCalls(StartQueryExecutionCommand)).toEqual([]);
  });

  it('stops the query on cancel, and reports it cancelled with what it scanned', async () => {
    athena.on(StopQueryExecutionCommand).resolves({});
    athena.on(GetQueryExecutionCommand).resolves(
      execution('CANCELLED', {
        Statistics: { EngineExecutionTimeInMillis: 900, DataScannedInBytes: 50 * 1024 ** 2 },
      }),
    );
    const client = engine();
    const run = await client.submit(request('SELECT count(*) FROM ethereum.transactions'));
    await client.cancel(run);
    const status = await client.status(run);
    expect(calls()).toEqual(['StartQueryExecution', 'StopQueryExecution', 'GetQueryExecution']);
    expect(athena.commandCalls(StopQueryExecutionCommand)[0]!.args[0].input).toEqual({
      QueryExecutionId: QUERY_ID,
    });
    expect(status.state).toBe('failed');
    const failure = (status as { failure: QueryFailure }).failure;
    expect(failure).toMatchObject({ type: 'cancelled', engineMillis: 900, scannedBytes: 50 * 1024 ** 2 });
  });

  it('stops a query still running past the tier time limit and fails it as timeout', async () => {
    athena.on(StopQueryExecutionCommand).resolves({});
    athena.on(GetQueryExecutionCommand).resolves(execution('RUNNING'));
    const client = engine();
    const run = await client.submit(request('SELECT count(*) FROM ethereum.logs', { timeoutMs: 30_000 }));
    expect(await client.status(run)).toEqual({ state: 'running' });
    now = new Date(SUBMITTED.getTime() + 30_001);
    const status = await client.status(run);
    expect(calls()).toEqual([
      'StartQueryExecution',
      'GetQueryExecution',
      'GetQueryExecution',
      'StopQueryExecution',
    ]);
    expect(status).toMatchObject({
      state: 'failed',
      failure: { type: 'timeout', message: expect.stringMatching(/30 s limit of the medium tier/) },
    });
  });

  it('positions an Athena error in the SQL the user wrote, not in the translation', async () => {
    const sql = 'select block_number,\n  bytearray_to_uint256(data) as v, nope\nfrom ethereum.logs';
    const client = engine();
    const run = await client.submit(request(sql));
    const ran = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString!;
    // The translation is one line; Athena reports the column of `nope` in it.
    expect(ran).not.toContain('\n');
    const column = ran.indexOf('nope') + 1;
    const message = `COLUMN_NOT_FOUND: line 1:${column}: Column 'nope' cannot be resolved or requester is not authorized to access requested resources`;
    athena.on(GetQueryExecutionCommand).resolves(failedWithUserError(message));
    const status = await client.status(run);
    expect(status.state).toBe('failed');
    const failure = (status as { failure: QueryFailure }).failure;
    expect(failure.message).toBe(
      "Column 'nope' cannot be resolved or requester is not authorized to access requested resources",
    );
    expect(failure.position).toEqual({ line: 2, column: sql.split('\n')[1]!.indexOf('nope') + 1 });
  });

  it('positions an Athena error as written when the translation converted a nested column before it', async () => {
    // `nope` may be a column of UNNEST's: the translation leaves it to Athena.
    const sql = 'select outputs,\n  nope\nfrom bitcoin.transactions cross join unnest(array[1]) as u (x)';
    const client = engine({ tables: athenaTableSchemas(BASE_TABLES) });
    const run = await client.submit(request(sql));
    const ran = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString!;
    expect(ran).toContain('JSON_FORMAT(CAST(outputs AS JSON))');
    const message = `COLUMN_NOT_FOUND: line 1:${ran.indexOf('nope') + 1}: Column 'nope' cannot be resolved`;
    athena.on(GetQueryExecutionCommand).resolves(failedWithUserError(message));
    const status = await client.status(run);
    expect((status as { failure: QueryFailure }).failure.position).toEqual({ line: 2, column: 3 });
  });

  it('refuses DuneSQL that does not parse before calling Athena, positioned as written', async () => {
    const failure = await engine()
      .submit(request('SELECT 1 +\n  FROM'))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailure);
    expect(failure).toMatchObject({ type: 'syntax_error', position: { line: 2 } });
    expect(calls()).toEqual([]);
  });

  it('checks SQL without running it: the failure a run would start with, and no Athena call', async () => {
    const views = engineWithViews();
    expect(await views.check({ sql: 'SELECT 1 +\n  FROM' })).toMatchObject({
      type: 'syntax_error',
      position: { line: 2 },
    });
    expect(await views.check({ sql: 'SELECT n FROM mv.bob.result_private', relations })).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(/^Table mv\.bob\.result_private does not exist/),
    });
    expect(await views.check({ sql: 'SELECT n FROM mv.alice.result_flows', relations })).toBeUndefined();
    // Tables and columns that do not exist, as Athena would report them once run (TABLE_NOT_FOUND,
    // COLUMN_NOT_FOUND: execution_error), with the closest names.
    expect(await views.check({ sql: 'SELECT 1 FROM dex.trade', relations })).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(/^Table 'dex\.trade' does not exist\. Did you mean dex\.trades\?/),
      position: { line: 1, column: 15 },
    });
    expect(await views.check({ sql: 'SELECT nn FROM mv.alice.result_flows', relations })).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(/^Column 'nn' cannot be resolved\. Did you mean n\?/),
      position: { line: 1, column: 8 },
    });
    expect(calls()).toEqual([]);
  });

  it('reads a materialized view through its version table, and refuses one the account may not read', async () => {
    const views = engineWithViews();
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: QUERY_ID });
    await views.submit(request('SELECT n FROM mv.alice.result_flows', { relations }));
    expect(calls()).toEqual(['StartQueryExecution']);
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toBe(
      `SELECT n FROM (SELECT CAST(c0 AS BIGINT) AS "n" FROM "svc_views"."${viewVersionTable('mv.alice.result_flows', '01HKZJ0000000000000000000A')}") AS result_flows`,
    );

    athena.resetHistory();
    const failure = await views
      .submit(request('SELECT n FROM mv.bob.result_private', { relations }))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(/^Table mv\.bob\.result_private does not exist/),
      position: { line: 1, column: 22 },
    });
    // Nor can SQL name the version tables themselves (another account's private view included).
    const direct = await views
      .submit(request('SELECT * FROM awsdatacatalog.SVC_VIEWS.v_0123456789abcdef_01hkzj', { relations }))
      .catch((error: unknown) => error);
    expect(direct).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(
        /^Table awsdatacatalog\.SVC_VIEWS\.v_0123456789abcdef_01hkzj does not exist\. Read materialized views by their names/,
      ),
    });
    expect(calls()).toEqual([]);
  });

  it("answers information_schema and SHOW from the service's catalog, never Glue's (which lists the view version tables)", async () => {
    const views = engineWithViews();
    await views.submit(request('SHOW COLUMNS FROM mv.alice.result_flows', { relations }));
    await views.submit(request('SELECT data_type FROM information_schema.columns', { relations }));
    const [listed, columns] = athena
      .commandCalls(StartQueryExecutionCommand)
      .map((call) => call.args[0].input.QueryString!);
    expect(listed).toContain("('mv', 'alice', 'result_flows', 'n', 1, NULL, 'YES', 'bigint', NULL, NULL)");
    expect(columns).toContain("'ethereum', 'transactions', 'value', 9, NULL, 'YES', 'uint256'");
    for (const sql of [listed, columns]) {
      expect(sql).not.toMatch(/information_schema|svc_views|v_[0-9a-f]{16}/i);
    }

    // Six copies of the public catalog's columns are longer than Athena takes: refused before it.
    athena.resetHistory();
    const joined = Array.from({ length: 6 }, (_, i) => `information_schema.columns c${i}`).join(', ');
    const tooLong = await views
      .submit(request(`SELECT count(*) FROM ${joined}`))
      .catch((error: unknown) => error);
    expect(tooLong).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(
        /^The query is [\d,]+ bytes once translated for Athena, which takes at most 262,144/,
      ),
    });
    expect(calls()).toEqual([]);
  });

  it('reads an Athena outage or throttling as engine_unavailable, not as the SQL’s fault', async () => {
    const internal =
      'INTERNAL_ERROR_QUERY_ENGINE: Amazon Athena experienced an internal error while executing this query.';
    athena.on(GetQueryExecutionCommand).resolves(
      execution('FAILED', {
        Status: {
          State: 'FAILED',
          SubmissionDateTime: SUBMITTED,
          StateChangeReason: internal,
          AthenaError: { ErrorCategory: 1, ErrorType: 401, Retryable: true, ErrorMessage: internal },
        },
      }),
    );
    const client = engine();
    const run: EngineRun = await client.submit(request('SELECT 1'));
    expect(await client.status(run)).toMatchObject({
      state: 'failed',
      failure: { type: 'engine_unavailable' },
    });

    athena
      .on(StartQueryExecutionCommand)
      .rejects(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {} }));
    await expect(client.submit(request('SELECT 1'))).rejects.toMatchObject({ type: 'engine_unavailable' });
  });
});
