import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateStateMachineCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import type { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import { createAwsServices } from '../../functions/aws/services';
import type { Account } from '../../functions/core/accounts';
import { type NodeProgress, nodePollBudget } from '../../functions/core/pipeline-workflow';
import { releaseSlot } from '../../functions/executions/slots';
import { executeSql } from '../../functions/executions/use-cases';
import { deleteMaterializedView, refresh, upsertMaterializedView } from '../../functions/matviews/use-cases';
import { startPipeline } from '../../functions/pipelines/use-cases';
import { createQuery } from '../../functions/queries/use-cases';
import { type RouteDefinition, routes } from '../../functions/routes';
import { createNodeRunner } from '../../functions/runner/node-runner';
import { configureServices, resetServices, type Services } from '../../functions/services';
import {
  clearUpload,
  createUpload,
  deleteUpload,
  dropRetiredUploadGenerations,
  insertRows,
  retiredGenerationLifetimeMs,
} from '../../functions/uploads/use-cases';
import { resultColumnsAnswer } from '../support/athena-answers';
import { dynaliteForAwsComposition } from '../support/aws-dynalite';
import { mockGlueTables } from '../support/glue-tables';
import { mockS3Objects } from '../support/s3-objects';

/**
 * The AWS composition answers every route: each route's handler is called as API Gateway calls it,
 * on services built by `createAwsServices` from the stack's environment, with the AWS clients
 * mocked (DynamoDB is dynalite). None may answer 501 (a port without an AWS adapter).
 */
const REPO = resolve(import.meta.dirname, '../..');
const sfn = mockClient(SFNClient);
const athena = mockClient(AthenaClient);
mockClient(SchedulerClient).resolves({});
mockClient(SecretsManagerClient).resolves({});
const sts = mockClient(STSClient);
const s3 = mockS3Objects();
const glue = mockGlueTables();
let dynamo: Awaited<ReturnType<typeof dynaliteForAwsComposition>>;
let services: Services;
let apiKey: string;

beforeAll(async () => {
  dynamo = await dynaliteForAwsComposition();
  // What lib/ gives the functions (lib/constructs/query-engine.ts, executions.ts, auth.ts).
  services = createAwsServices({
    [SERVICE_TABLE.envVar]: SERVICE_TABLE.localName,
    RESULTS_BUCKET: 'svc-results',
    ATHENA_WORKGROUP_MEDIUM: 'svc-medium',
    ATHENA_WORKGROUP_LARGE: 'svc-large',
    STATE_MACHINE_ROLE_ARN: 'arn:aws:iam::123456789012:role/workflows',
    STATE_MACHINE_PREFIX: 'svc_wf',
    NODE_RUNNER_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:svc-node-runner',
    SCHEDULE_GROUP_NAME: 'svc_wf-refresh',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
    SIGNING_KEYS_SECRET_ID: 'svc/oauth-signing-keys',
    DATA_BUCKET: 'svc-data',
    VIEWS_DATABASE: 'svc_views',
    ATHENA_RUN_ROLE_ARN: 'arn:aws:iam::123456789012:role/svc-QueryRunRole',
  });
  configureServices(services);
  sfn.on(CreateStateMachineCommand).callsFake((input) => ({
    stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${input.name}`,
    creationDate: new Date(),
  }));
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:execution', startDate: new Date() });
  athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
  // Every Athena run starts with a session of the query-run role (run-isolation.ts).
  sts.on(AssumeRoleCommand).resolves({
    Credentials: {
      AccessKeyId: 'ASIA-RUN',
      SecretAccessKey: 'secret',
      SessionToken: 'token',
      Expiration: new Date(Date.now() + 3_600_000),
    },
  });
  const account = await createAccount(services.accounts, { handle: 'routes501' });
  apiKey = (await createApiKey(services.accounts, account.accountId, 'routes')).apiKey;
});

afterAll(async () => {
  resetServices();
  await dynamo?.stop();
});

/** A private saved query of the account, as the API would create it. */
function privateQuery(account: Account, name: string, querySql: string) {
  return createQuery(services.queries, account, {
    name,
    description: '',
    querySql,
    parameters: [],
    tags: [],
    isPrivate: true,
  });
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

async function call(
  method: string,
  path: string,
  body?: unknown,
  query: Record<string, string> = {},
): Promise<APIGatewayProxyResult> {
  const route = routes.find((r) => r.method === method && matches(r.path, path));
  if (!route) throw new Error(`no route ${method} ${path}`);
  return invoke(route, path, body, query);
}

function matches(template: string, path: string): boolean {
  const pattern = template.replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

async function invoke(
  route: RouteDefinition,
  path: string,
  body?: unknown,
  query: Record<string, string> = {},
): Promise<APIGatewayProxyResult> {
  const module = (await import(resolve(REPO, route.entry))) as Record<string, Handler>;
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const values = path.split('/');
  const params = Object.fromEntries(
    names.map((name) => [name, decodeURIComponent(values[route.path.split('/').indexOf(`{${name}}`)]!)]),
  );
  const headers = {
    'x-service-api-key': apiKey,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const event = {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: Object.keys(query).length
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]]))
      : null,
    pathParameters: names.length ? params : null,
    stageVariables: null,
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      httpMethod: route.method,
      path,
      resourcePath: route.path,
      identity: { sourceIp: '203.0.113.9' },
    },
  } as unknown as APIGatewayProxyEvent;
  const context = { awsRequestId: 'aws-req', functionName: route.functionName } as Context;
  return module[route.handler]!(event, context);
}

describe('the AWS composition answers every route', () => {
  it('with no 501: queries, executions on Athena, results from S3, views, pipelines, MCP, OAuth', async () => {
    const created = await call('POST', '/v1/query', { name: 'routes', query_sql: 'select 1 as x' });
    expect(created.statusCode).toBe(200);
    const queryId = String(JSON.parse(created.body).query_id);
    const executed = await call('POST', '/v1/sql/execute', { sql: 'select 1 as x' });
    expect(executed.statusCode).toBe(200);
    const executionId = String(JSON.parse(executed.body).execution_id);
    // The execution completes on Athena: its CSV is indexed by the S3 result store.
    s3.put('svc-results', 'athena/medium/q-1.csv', '"x"\n"1"\n');
    const results = services.results as S3ResultStore;
    await results.register(executionId, { bucket: 'svc-results', key: 'athena/medium/q-1.csv' }, [
      { name: 'x', type: 'integer' },
    ]);
    await services.executions.transition(executionId, ['QUERY_STATE_PENDING'], {
      state: 'QUERY_STATE_COMPLETED',
      executionStartedAt: new Date().toISOString(),
      executionEndedAt: new Date().toISOString(),
      result: { columns: [{ name: 'x', type: 'integer' }], rowCount: 1, resultBytes: 8 },
    });
    const page = await call('GET', `/v1/execution/${executionId}/results`);
    expect(JSON.parse(page.body).result.rows).toEqual([{ x: 1 }]);

    const answers: string[] = [];
    for (const route of routes) {
      const path = route.path
        .replace('{query_id}', queryId)
        .replace('{execution_id}', executionId)
        .replace('{full_name}', 'dex.trades')
        .replace(/\{[^}]+\}/g, '1');
      const body =
        route.path === '/mcp/v1' && route.method === 'POST'
          ? { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
          : route.path === '/v1/pipelines/execute'
            ? { pipeline: { nodes: [{ id: 1, query_execution: { query_id: Number(queryId) } }] } }
            : route.path === '/v1/materialized-views'
              ? { name: 'routes_view', query_id: Number(queryId) }
              : route.method === 'GET' || route.method === 'DELETE'
                ? undefined
                : {};
      const response = await invoke(route, path, body);
      answers.push(`${route.method} ${route.path} → ${response.statusCode}`);
    }
    expect(answers.filter((answer) => answer.endsWith('501'))).toEqual([]);
    // The walk really reached the engine: the execute routes started Athena-backed workflows.
    expect(answers).toContain('POST /v1/query/{query_id}/execute → 200');
    expect(answers).toContain(`GET /v1/execution/{execution_id}/results → 200`);
  }, 120_000);

  it('runs the workflow steps of an execution on Athena: slot, submit in the tier workgroup, poll', async () => {
    // An account of its own: the route walk left the first account's executions queued.
    const account = await createAccount(services.accounts, { handle: 'athena_steps' });
    const executionId = (await executeSql(services, account, 'select 2 as y', 'medium')).executionId;
    const runner = createNodeRunner(services);
    expect(await runner({ action: 'acquire_slot', execution_id: executionId, attempt: 0 })).toMatchObject({
      status: 'acquired',
    });
    expect(await runner({ action: 'submit_query', execution_id: executionId })).toMatchObject({
      status: 'running',
    });
    const start = athena.commandCalls(StartQueryExecutionCommand).at(-1)!.args[0].input;
    expect(start).toMatchObject({
      WorkGroup: 'svc-medium',
      QueryString: expect.stringMatching(/SELECT 2 AS y/i),
    });
    athena.on(GetQueryExecutionCommand).resolves({
      QueryExecution: {
        QueryExecutionId: 'q-1',
        Status: { State: 'RUNNING', SubmissionDateTime: new Date() },
        Statistics: { EngineExecutionTimeInMillis: 100, DataScannedInBytes: 0 },
      },
    });
    expect(await runner({ action: 'check_query', execution_id: executionId, polls: 0 })).toMatchObject({
      status: 'running',
      polls: 1,
    });
    expect(await services.executions.get(executionId)).toMatchObject({
      state: 'QUERY_STATE_EXECUTING',
      engineRunId: 'q-1',
    });
  });

  it('keeps the types of the columns Athena returns as JSON with the execution, through submit and check', async () => {
    const account = await createAccount(services.accounts, { handle: 'athena_nested' });
    const sql = 'select id, outputs from bitcoin.transactions';
    const executionId = (await executeSql(services, account, sql, 'medium')).executionId;
    const runner = createNodeRunner(services);
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-nested' });
    await runner({ action: 'acquire_slot', execution_id: executionId, attempt: 0 });
    await runner({ action: 'submit_query', execution_id: executionId });
    const type = 'array(row(index integer, value decimal(18,8), address varchar, type varchar))';
    expect((await services.executions.get(executionId))!.nestedColumns).toEqual([{ position: 1, type }]);
    s3.put('svc-results', 'athena/medium/q-nested.csv', '"id","outputs"\n"01","[]"\n');
    athena.on(GetQueryExecutionCommand).resolves({
      QueryExecution: {
        QueryExecutionId: 'q-nested',
        ResultConfiguration: { OutputLocation: 's3://svc-results/athena/medium/q-nested.csv' },
        Status: { State: 'SUCCEEDED', SubmissionDateTime: new Date() },
        Statistics: { EngineExecutionTimeInMillis: 300, DataScannedInBytes: 0 },
      },
    });
    athena.on(GetQueryResultsCommand).resolves(
      resultColumnsAnswer([
        ['id', 'varbinary'],
        ['outputs', 'varchar'],
      ]),
    );
    await runner({ action: 'check_query', execution_id: executionId, polls: 0 });
    expect((await services.executions.get(executionId))!.result).toMatchObject({
      columns: [
        { name: 'id', type: 'varbinary' },
        { name: 'outputs', type },
      ],
      rowCount: 1,
    });
  });

  it('AcquireSlot with a free slot submits at once and answers its task token (the slot gate on AWS)', async () => {
    const account = await createAccount(services.accounts, { handle: 'slot_gate' });
    const executionId = (await executeSql(services, account, 'select 4 as w', 'medium')).executionId;
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-gate' });
    sfn.on(SendTaskSuccessCommand).resolves({});
    const runner = createNodeRunner(services);
    // As Step Functions invokes it for lambda:invoke.waitForTaskToken: the Payload is the event.
    expect(
      await runner({ action: 'acquire_slot', execution_id: executionId, task_token: 'token-gate' }),
    ).toBeUndefined();
    expect(athena.commandCalls(StartQueryExecutionCommand).at(-1)!.args[0].input.QueryString).toMatch(
      /SELECT 4 AS w/i,
    );
    const answer = sfn.commandCalls(SendTaskSuccessCommand).at(-1)!.args[0].input;
    expect(answer.taskToken).toBe('token-gate');
    expect(JSON.parse(answer.output!)).toMatchObject({ status: 'running', polls: 0 });
    expect(await services.executions.get(executionId)).toMatchObject({ engineRunId: 'q-gate' });
  });

  it("runs a pipeline node from the workflow's Task states: each returns at once, the Wait states poll", async () => {
    const account = await createAccount(services.accounts, { handle: 'athena_pipeline' });
    const query = await privateQuery(account, 'node', 'select 3 as z');
    const { pipelineExecutionId } = await startPipeline(services, account, {
      nodes: [{ id: 1, dependencies: [], queryExecution: { queryId: query.queryId, performance: 'medium' } }],
    });
    const definition = JSON.parse(
      sfn.commandCalls(CreateStateMachineCommand).at(-1)!.args[0].input.definition!,
    );
    const branch = definition.States.Nodes.Branches[0].States;
    const limits = { poll_budget: branch.Start_1.Parameters.poll_budget, poll_window_seconds: 1920 };
    expect(limits.poll_budget).toBe(nodePollBudget(1));
    const ids = { pipeline_execution_id: pipelineExecutionId, node_id: 1, ...limits };
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-node' });
    const runner = createNodeRunner(services);
    // Start_1: the node's execution takes a slot and is submitted to Athena; the Task returns.
    const started = (await runner({ action: 'start_node', ...ids })) as NodeProgress;
    expect(started).toMatchObject({ status: 'running', polls: 1, wait_seconds: 1 });
    expect(athena.commandCalls(StartQueryExecutionCommand).at(-1)!.args[0].input).toMatchObject({
      WorkGroup: 'svc-medium',
      QueryString: expect.stringMatching(/SELECT 3 AS z/i),
    });
    const output = 's3://svc-results/athena/medium/q-node.csv';
    const status = (state: string) => ({
      QueryExecution: {
        QueryExecutionId: 'q-node',
        ResultConfiguration: { OutputLocation: output },
        Status: { State: state as 'RUNNING', SubmissionDateTime: new Date() },
        Statistics: { EngineExecutionTimeInMillis: 800, DataScannedInBytes: 10_485_760 },
      },
    });
    // Check_1 while Athena runs it: one GetQueryExecution, answered at once.
    athena.on(GetQueryExecutionCommand).resolves(status('RUNNING'));
    const polled = (await runner({
      action: 'check_node',
      ...ids,
      execution_id: started.execution_id,
      polls: started.polls,
    })) as NodeProgress;
    expect(polled).toMatchObject({ status: 'running', polls: 2 });
    expect(await services.pipelines.getNode(pipelineExecutionId, 1)).toMatchObject({ state: 'running' });
    // Check_1 after it succeeded: the CSV is indexed and the node completes with its credits.
    athena.on(GetQueryExecutionCommand).resolves(status('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: {
        Rows: [{ Data: [{ VarCharValue: 'z' }] }],
        ResultSetMetadata: {
          ColumnInfo: [{ Name: 'z', Label: 'z', Type: 'integer', Precision: 10, Scale: 0 }],
        },
      },
    });
    s3.put('svc-results', 'athena/medium/q-node.csv', '"z"\n"3"\n');
    const ended = (await runner({
      action: 'check_node',
      ...ids,
      execution_id: polled.execution_id,
      polls: polled.polls,
    })) as NodeProgress;
    expect(ended).toMatchObject({ status: 'finished' });
    expect(await services.pipelines.getNode(pipelineExecutionId, 1)).toMatchObject({
      state: 'completed',
      executionId: started.execution_id,
      credits: expect.any(Number),
    });
    await runner({ action: 'finish_pipeline', pipeline_execution_id: pipelineExecutionId });
    expect((await services.pipelines.get(pipelineExecutionId))!.execution.state).toBe('completed');
  });

  it('refreshes a materialized view on Athena into a Glue table version that later SQL reads, and drops it with the view', async () => {
    const account = await createAccount(services.accounts, { handle: 'athena_views' });
    const query = await privateQuery(account, 'flows', 'select 5 as v, 0x0a as b');
    const runner = createNodeRunner(services);
    const columns = [
      { Name: 'v', Label: 'v', Type: 'integer', Precision: 10, Scale: 0 },
      { Name: 'b', Label: 'b', Type: 'varbinary', Precision: 0, Scale: 0 },
    ];
    /** Runs a refresh's workflow steps, Athena answering with `csv` as the result. */
    const completeRefresh = async (executionId: string, queryId: string, csv: string) => {
      athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: queryId });
      await runner({ action: 'acquire_slot', execution_id: executionId, attempt: 0 });
      await runner({ action: 'submit_query', execution_id: executionId });
      s3.put('svc-results', `athena/medium/${queryId}.csv`, csv);
      athena.on(GetQueryExecutionCommand).resolves({
        QueryExecution: {
          QueryExecutionId: queryId,
          ResultConfiguration: { OutputLocation: `s3://svc-results/athena/medium/${queryId}.csv` },
          Status: { State: 'SUCCEEDED', SubmissionDateTime: new Date() },
          Statistics: { EngineExecutionTimeInMillis: 300, DataScannedInBytes: 0 },
        },
      });
      athena
        .on(GetQueryResultsCommand)
        .resolves({ ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: columns } } });
      expect(await runner({ action: 'check_query', execution_id: executionId, polls: 0 })).toMatchObject({
        status: 'finished',
      });
    };
    const first = await upsertMaterializedView(services, account, {
      name: 'result_flows',
      queryId: query.queryId,
      tier: 'medium',
    });
    await completeRefresh(first.executionId, 'q-view-1', '"v","b"\n"5","0a"\n');
    const view = await services.materializedViews.get('mv.athena_views.result_flows');
    expect(view).toMatchObject({ currentExecutionId: first.executionId, rowCount: 1 });
    const [firstTable] = glue.names('svc_views');
    expect(firstTable).toMatch(new RegExp(`_${first.executionId.toLowerCase()}$`));
    expect(s3.has('svc-data', `views/${firstTable}/rows.json.gz`)).toBe(true);

    // SQL naming the view reads the current version's table, its columns cast back to their types.
    const reader = (
      await executeSql(services, account, 'select v, b from mv.athena_views.result_flows', 'medium')
    ).executionId;
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-reader' });
    await runner({ action: 'acquire_slot', execution_id: reader, attempt: 0 });
    await runner({ action: 'submit_query', execution_id: reader });
    const readerSql = athena.commandCalls(StartQueryExecutionCommand).at(-1)!.args[0].input.QueryString!;
    expect(readerSql).toContain(`FROM "svc_views"."${firstTable}"`);
    expect(readerSql).toMatch(/CAST\(c0 AS INT(EGER)?\) AS "v"/i);
    expect(readerSql).toMatch(/FROM_HEX\(REGEXP_REPLACE\(c1, '\^0x\| ', ''\)\) AS "b"/i);
    // Its Athena session may read this view's versions, and no other view's.
    const policy = sts.commandCalls(AssumeRoleCommand).at(-1)!.args[0].input.Policy!;
    expect(policy).toContain(`table/svc_views/${firstTable!.replace(/[0-9a-z]+$/, '*')}`);
    expect(policy.match(/table\/svc_views\/v_/g)).toHaveLength(1);

    // A second refresh switches readers to a new version; the first stays readable for now.
    const second = await refresh(services, account, 'mv.athena_views.result_flows', 'medium');
    await completeRefresh(second.executionId, 'q-view-2', '"v","b"\n"6","0b"\n');
    expect((await services.materializedViews.get('mv.athena_views.result_flows'))!.currentExecutionId).toBe(
      second.executionId,
    );
    expect(glue.names('svc_views')).toHaveLength(2);

    await deleteMaterializedView(services, account, 'mv.athena_views.result_flows');
    expect(glue.names('svc_views')).toEqual([]);
    expect(s3.has('svc-data', `views/${firstTable}/rows.json.gz`)).toBe(false);
  });

  it('keeps an uploaded table on Athena as a Glue table per generation over one object per insert, read with its types', async () => {
    const account = await createAccount(services.accounts, { handle: 'athena_uploads' });
    await createUpload(services, account, {
      namespace: 'athena_uploads',
      tableName: 'labels',
      description: '',
      isPrivate: true,
      columns: [
        { name: 'address', type: 'varbinary', nullable: false },
        { name: 'amount', type: 'uint256', nullable: true },
        { name: 'seen_at', type: 'timestamp', nullable: true },
      ],
    });
    const [generation] = glue.names('svc_views');
    expect(glue.tables.get(`svc_views/${generation}`)).toMatchObject({
      Parameters: { classification: 'json', uploaded_table: 'dune.athena_uploads.labels' },
      StorageDescriptor: {
        Columns: [
          { Name: 'c0', Type: 'string', Comment: 'address varbinary' },
          { Name: 'c1', Type: 'string', Comment: 'amount uint256' },
          { Name: 'c2', Type: 'string', Comment: 'seen_at timestamp' },
        ],
        Location: `s3://svc-data/views/${generation}/`,
        SerdeInfo: { SerializationLibrary: 'org.apache.hive.hcatalog.data.JsonSerDe' },
      },
    });
    const csv = 'address,amount,seen_at\n0xAB,12,2024-01-01T00:00:00+01:00\n0xcd,,\n';
    const inserted = await insertRows(services, account, 'dune.athena_uploads.labels', csv, 'csv');
    expect(inserted).toMatchObject({ rowsWritten: 2 });
    const put = s3.mock.commandCalls(PutObjectCommand).at(-1)!.args[0].input;
    expect(put.Key).toMatch(new RegExp(`^views/${generation}/[0-9a-z]{26}\\.json\\.gz$`));
    expect(gunzipSync(put.Body as Buffer).toString()).toBe(
      '{"c0":"0xab","c1":"12","c2":"2023-12-31 23:00:00.000"}\n{"c0":"0xcd","c1":null,"c2":null}\n',
    );

    // SQL naming the table reads the generation's Glue table, its columns cast back to their types.
    const reader = (
      await executeSql(
        services,
        account,
        'select address, amount, seen_at from dune.athena_uploads.labels',
        'medium',
      )
    ).executionId;
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-upload-reader' });
    const runner = createNodeRunner(services);
    await runner({ action: 'acquire_slot', execution_id: reader, attempt: 0 });
    await runner({ action: 'submit_query', execution_id: reader });
    const readerSql = athena.commandCalls(StartQueryExecutionCommand).at(-1)!.args[0].input.QueryString!;
    expect(readerSql).toContain(`FROM "svc_views"."${generation}"`);
    expect(readerSql).toMatch(/FROM_HEX\(REGEXP_REPLACE\(c0, '\^0x\| ', ''\)\) AS "address"/i);
    expect(readerSql).toMatch(/CAST\(c1 AS DECIMAL\(38, 0\)\) AS "amount"/i);
    expect(readerSql).toMatch(/CAST\(c2 AS TIMESTAMP\(3\)\) AS "seen_at"/i);
    const policy = sts.commandCalls(AssumeRoleCommand).at(-1)!.args[0].input.Policy!;
    expect(policy).toContain(`table/svc_views/${generation!.replace(/[0-9a-z]+$/, '*')}`);

    // Another account's SQL cannot name the private table.
    const other = await createAccount(services.accounts, { handle: 'athena_uploads_other' });
    const refused = (await executeSql(services, other, 'select * from dune.athena_uploads.labels', 'medium'))
      .executionId;
    await runner({ action: 'acquire_slot', execution_id: refused, attempt: 0 });
    await runner({ action: 'submit_query', execution_id: refused });
    expect(await services.executions.get(refused)).toMatchObject({
      state: 'QUERY_STATE_FAILED',
      error: {
        message: expect.stringMatching(/dune\.athena_uploads\.labels does not exist: no uploaded table/),
      },
    });

    // A clear starts a new generation; the old one's table and objects stay for the runs that may
    // still read them, until the sweep finds the generation older than the longest run.
    await clearUpload(services, account, 'dune.athena_uploads.labels');
    expect(glue.names('svc_views')).toHaveLength(2);
    expect(glue.names('svc_views')).toContain(generation);
    expect(s3.has('svc-data', put.Key!)).toBe(true);
    const later = new Date(Date.now() + retiredGenerationLifetimeMs(services) + 60_000);
    expect(await dropRetiredUploadGenerations(services, later)).toBe(1);
    expect(glue.names('svc_views')).toHaveLength(1);
    expect(glue.names('svc_views')).not.toContain(generation);
    expect(s3.has('svc-data', put.Key!)).toBe(false);
    await deleteUpload(services, account, 'dune.athena_uploads.labels');
    expect(glue.names('svc_views')).toHaveLength(1);
    expect(await dropRetiredUploadGenerations(services, later)).toBe(1);
    expect(glue.names('svc_views')).toEqual([]);
  });

  it('parks a pipeline node without a slot on the slot gate, and submits it when a slot is handed on', async () => {
    const account = await createAccount(services.accounts, { handle: 'node_slots' });
    const query = await privateQuery(account, 'node', 'select 6 as s');
    const { pipelineExecutionId } = await startPipeline(services, account, {
      nodes: [{ id: 1, dependencies: [], queryExecution: { queryId: query.queryId, performance: 'medium' } }],
    });
    // Every slot of the account is taken.
    const slots = services.config.maxConcurrentExecutions;
    for (let i = 0; i < slots; i++)
      expect(await services.limiter.tryAcquire(account.accountId, slots)).toBe(true);
    const runner = createNodeRunner(services);
    const started = (await runner({
      action: 'start_node',
      pipeline_execution_id: pipelineExecutionId,
      node_id: 1,
      poll_budget: nodePollBudget(1),
      poll_window_seconds: 1920,
    })) as NodeProgress;
    expect(started).toMatchObject({
      status: 'waiting',
      pipeline_execution_id: pipelineExecutionId,
      node_id: 1,
    });
    // WaitForSlot_1, as Step Functions invokes it: parks with its token, answers nothing yet.
    sfn.on(SendTaskSuccessCommand).resolves({});
    const answered = sfn.commandCalls(SendTaskSuccessCommand).length;
    expect(
      await runner({
        action: 'acquire_slot',
        execution_id: started.execution_id,
        task_token: 'token-node-1',
      }),
    ).toBeUndefined();
    expect(sfn.commandCalls(SendTaskSuccessCommand)).toHaveLength(answered);
    // A run of the account ends: its slot is handed to the node's token.
    await releaseSlot(services, account.accountId);
    const handOn = sfn.commandCalls(SendTaskSuccessCommand).at(-1)!.args[0].input;
    expect(handOn.taskToken).toBe('token-node-1');
    const slot = JSON.parse(handOn.output!);
    expect(slot).toMatchObject({ status: 'acquired' });
    // Check_1 gets the progress with the slot beside it: submits without taking a second slot.
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-node-slot' });
    const checked = (await runner({ action: 'check_node', progress: { ...started, slot } })) as NodeProgress;
    expect(checked).toMatchObject({ status: 'running', execution_id: started.execution_id });
    expect(await services.executions.get(started.execution_id!)).toMatchObject({
      engineRunId: 'q-node-slot',
    });
    expect(await services.limiter.tryAcquire(account.accountId, slots)).toBe(false);
  });
});
