import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  InvalidRequestException,
  type QueryExecution,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { AthenaQueries, failureOf } from '../../functions/aws/athena/athena-queries';
import { creditsFor, runCredits } from '../../functions/core/credits';
import { QueryFailure } from '../../functions/core/engine';

const athena = mockClient(AthenaClient);
const QUERY_ID = 'a7e1f3c2-5b0d-4c8e-9f61-2d3b4a5c6d7e';
const queries = () =>
  new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
    workGroups: { medium: 'svc-medium', large: 'svc-large' },
    database: 'onchain',
  });

/** A GetQueryExecution answer shaped as Athena returns it (API reference: QueryExecution). */
function execution(state: string, extra: Partial<QueryExecution> = {}): { QueryExecution: QueryExecution } {
  return {
    QueryExecution: {
      QueryExecutionId: QUERY_ID,
      Query: 'SELECT 1',
      StatementType: 'DML',
      ResultConfiguration: { OutputLocation: `s3://svc-results/athena/medium/${QUERY_ID}.csv` },
      QueryExecutionContext: { Database: 'onchain', Catalog: 'awsdatacatalog' },
      Status: { State: state as 'RUNNING', SubmissionDateTime: new Date('2026-11-23T20:00:00Z') },
      Statistics: {
        EngineExecutionTimeInMillis: 1840,
        DataScannedInBytes: 73_400_320,
        TotalExecutionTimeInMillis: 2010,
        QueryQueueTimeInMillis: 95,
        ResultReuseInformation: { ReusedPreviousResult: false },
      },
      WorkGroup: 'svc-medium',
      EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
      ...extra,
    },
  };
}

beforeEach(() => athena.reset());

describe('Athena queries', () => {
  it('starts in the tier workgroup with an idempotent token, polls, and reads the output location', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: QUERY_ID });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce(execution('QUEUED'))
      .resolvesOnce(execution('RUNNING'))
      .resolves(execution('SUCCEEDED'));
    const client = queries();
    const id = await client.start({
      executionId: '01HKZJ2683PHF9Q9PHHQ8FW4Q1',
      sql: 'SELECT 1',
      tier: 'large',
    });
    expect(id).toBe(QUERY_ID);
    const start = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input;
    expect(start).toMatchObject({
      QueryString: 'SELECT 1',
      WorkGroup: 'svc-large',
      QueryExecutionContext: { Catalog: 'AwsDataCatalog', Database: 'onchain' },
    });
    expect(start.ClientRequestToken).toMatch(/^[0-9a-f]{64}$/);
    expect(start.ResultReuseConfiguration).toBeUndefined();
    await client.start({ executionId: '01HKZJ2683PHF9Q9PHHQ8FW4Q1', sql: 'SELECT 1', tier: 'large' });
    expect(athena.commandCalls(StartQueryExecutionCommand)[1]!.args[0].input.ClientRequestToken).toBe(
      start.ClientRequestToken,
    );

    expect(await client.status(id)).toMatchObject({
      state: 'queued',
      submittedAt: new Date('2026-11-23T20:00:00Z'),
    });
    expect(await client.status(id)).toMatchObject({ state: 'running' });
    expect(await client.status(id)).toEqual({
      state: 'succeeded',
      output: { bucket: 'svc-results', key: `athena/medium/${QUERY_ID}.csv` },
      statistics: {
        dataScannedBytes: 73_400_320,
        engineMillis: 1840,
        queueMillis: 95,
        reusedPreviousResult: false,
      },
    });
  });

  it('asks for result reuse only when the caller allows it', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: QUERY_ID });
    const client = new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
      workGroups: { medium: 'm', large: 'l' },
      database: 'onchain',
    });
    await client.start({ executionId: 'x', sql: 'SELECT 1', tier: 'medium', reuseMinutes: 60 });
    await client.start({ executionId: 'y', sql: 'SELECT 1', tier: 'medium' });
    const [reused, fresh] = athena.commandCalls(StartQueryExecutionCommand).map((c) => c.args[0].input);
    expect(reused!.ResultReuseConfiguration).toEqual({
      ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: 60 },
    });
    expect(fresh!.ResultReuseConfiguration).toBeUndefined();
  });

  it('stops a query and reports it cancelled', async () => {
    athena.on(StopQueryExecutionCommand).resolves({});
    athena.on(GetQueryExecutionCommand).resolves(
      execution('CANCELLED', {
        Status: { State: 'CANCELLED', StateChangeReason: 'Query was cancelled by user' },
      }),
    );
    const client = queries();
    await client.stop(QUERY_ID);
    expect(athena.commandCalls(StopQueryExecutionCommand)[0]!.args[0].input).toEqual({
      QueryExecutionId: QUERY_ID,
    });
    const status = await client.status(QUERY_ID);
    expect(status.state).toBe('failed');
    expect(status.state === 'failed' && status.failure.type).toBe('cancelled');
  });

  it('reads column types from GetQueryResults metadata, decimals with precision and scale', async () => {
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: {
        Rows: [
          {
            Data: [
              { VarCharValue: 'block_number' },
              { VarCharValue: 'amount_raw' },
              { VarCharValue: 'from' },
            ],
          },
        ],
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
              Name: 'amount_raw',
              Label: 'amount_raw',
              Type: 'decimal',
              Precision: 38,
              Scale: 0,
            },
            {
              CatalogName: 'hive',
              Name: 'from',
              Label: 'from',
              Type: 'varbinary',
              Precision: 2147483647,
              Scale: 0,
            },
          ],
        },
      },
    });
    expect(await queries().columns(QUERY_ID)).toEqual([
      { name: 'block_number', type: 'bigint' },
      { name: 'amount_raw', type: 'decimal(38,0)' },
      { name: 'from', type: 'varbinary' },
    ]);
    expect(athena.commandCalls(GetQueryResultsCommand)[0]!.args[0].input).toEqual({
      QueryExecutionId: QUERY_ID,
      MaxResults: 1,
    });
  });
});

describe('Athena failures map to the local failure types', () => {
  const failed = (category: number, type: number, message: string) =>
    execution('FAILED', {
      Status: {
        State: 'FAILED',
        StateChangeReason: message,
        AthenaError: {
          ErrorCategory: category,
          ErrorType: type,
          Retryable: category === 1,
          ErrorMessage: message,
        },
      },
    }).QueryExecution;

  it.each([
    [
      2,
      1000,
      "line 1:15: mismatched input 'FORM'. Expecting: ',', 'FROM', <EOF>",
      'syntax_error',
      { line: 1, column: 15 },
    ],
    [
      2,
      1000,
      "SYNTAX_ERROR: line 3:8: Column 'nope' cannot be resolved",
      'syntax_error',
      { line: 3, column: 8 },
    ],
    [2, 1000, 'Division by zero', 'execution_error', undefined],
    [2, 1000, 'PERMISSION_DENIED: Access denied to table mv.other.result_x', 'permission_denied', undefined],
    [2, 1000, 'Query exhausted resources at this scale factor', 'execution_error', undefined],
    [1, 3, 'Query exhausted resources at this scale factor', 'resource_exhausted', undefined],
    [1, 210, 'Query timeout', 'timeout', undefined],
    [1, 200, 'Query engine had an internal error', 'engine_unavailable', undefined],
    [
      2,
      1000,
      'Query cancelled: it exceeded the bytes scanned limit of the workgroup',
      'resource_exhausted',
      undefined,
    ],
  ])('category %d type %d: %s → %s', (category, type, message, expected, position) => {
    const failure = failureOf(failed(category, type, message), 1200);
    expect(failure).toBeInstanceOf(QueryFailure);
    expect(failure.type).toBe(expected);
    expect(failure.position).toEqual(position);
    expect(failure.engineMillis).toBe(1200);
    if (expected === 'engine_unavailable') {
      expect(failure.retryable).toBe(true);
      expect(failure.message).toMatch(/not a problem with the SQL/);
    } else expect(failure.message).not.toMatch(/^line \d|^[A-Z_]+:/);
  });

  it('turns throttling and service errors at start into engine_unavailable, a bad request into an execution error', async () => {
    athena
      .on(StartQueryExecutionCommand)
      .rejectsOnce(
        new TooManyRequestsException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }),
      )
      .rejectsOnce(
        Object.assign(new Error('We encountered an internal error'), {
          name: 'InternalServerException',
          $metadata: { httpStatusCode: 500 },
        }),
      )
      .rejectsOnce(
        new InvalidRequestException({ message: 'Query string too long', $metadata: { httpStatusCode: 400 } }),
      );
    const start = () => queries().start({ executionId: 'x', sql: 'SELECT 1', tier: 'medium' });
    expect(await start().catch((error: QueryFailure) => error.type)).toBe('engine_unavailable');
    expect(await start().catch((error: QueryFailure) => error.type)).toBe('engine_unavailable');
    expect(await start().catch((error: QueryFailure) => error.type)).toBe('execution_error');
  });

  it('charges engine time per tier plus scanned data (10 MB minimum), and nothing for a reused result', () => {
    // What the Athena engine reports of a run (functions/aws/athena/athena-engine.ts).
    const usage = { scannedBytes: 1024 ** 3, engineMillis: 2000, reusedResult: false };
    expect(runCredits(usage, 'medium')).toBe(3);
    expect(runCredits(usage, 'large')).toBe(5);
    expect(runCredits({ ...usage, scannedBytes: 1000 }, 'medium')).toBeCloseTo(2.01, 2);
    expect(runCredits({ ...usage, reusedResult: true }, 'large')).toBe(0);
    // Locally nothing is scanned per byte: engine time alone, as before.
    expect(runCredits({ engineMillis: 2000 }, 'large')).toBe(creditsFor(2000, 'large'));
  });
});
