import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TABLE_DEFINITIONS } from '../../functions/aws/dynamo/table-definitions';
import { routes } from '../../functions/routes';
import { STAGE_NAME, THROTTLING } from '../../lib/constructs/api';
import {
  QUERY_TIMEOUT_SECONDS,
  RUNNER_ENTRY,
  RUNNER_HANDLER,
  STATE_MACHINE_PREFIX_MAX_LENGTH,
  stateMachinePrefix,
  WORKFLOW_STACK_TAG,
} from '../../lib/constructs/executions';
import { type FunctionGroup, functionGroupOf } from '../../lib/constructs/function-roles';
import {
  BASE_FUNCTION_ENVIRONMENT,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
} from '../../lib/constructs/service-function';
import { logicalIdOf, synthServiceStack } from './helpers';

type CfnResource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

const { stack, template } = synthServiceStack();
const resources = template.toJSON().Resources as Record<string, CfnResource>;
const roleIdOf = (group: FunctionGroup) => logicalIdOf(stack, stack.roles.all.get(group)!);
const workflowRoleId = logicalIdOf(stack, stack.executions.workflowRole);
const runnerId = logicalIdOf(stack, stack.executions.runner);
const schedulerRoleId = logicalIdOf(stack, stack.executions.schedulerRole);
/** API functions, the node runner and the authorizer. */
/** Deprecated paths (supersededBy) run their successor's function. */
const routesWithOwnFunction = routes.filter((r) => !r.supersededBy);
const FUNCTION_COUNT = routesWithOwnFunction.length + 2;

function ofType(type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/** The API's methods but the CORS preflights (OPTIONS, test/cdk/cors.test.ts). */
const routeMethods = () =>
  ofType('AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod !== 'OPTIONS');

/** Rebuilds `/v1/...` for an AWS::ApiGateway::Resource by walking ParentId up to the root. */
function resourcePath(resourceId: unknown): string {
  const ref = (resourceId as { Ref?: string }).Ref;
  if (!ref) return ''; // Fn::GetAtt RestApi.RootResourceId
  const props = resources[ref]?.Properties as { ParentId: unknown; PathPart: string };
  return `${resourcePath(props.ParentId)}/${props.PathPart}`;
}

/** The Lambda function an AWS_PROXY integration invokes (its Uri embeds `Fn::GetAtt [fn, Arn]`). */
function integrationTarget(integration: unknown): string {
  const match = JSON.stringify(integration).match(/"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/);
  return match?.[1] ?? '';
}

describe('the route table drives the API', () => {
  it('creates one Lambda function per route, running the route handler on Node 22 arm64', () => {
    // Plus the node runner (below) and the authorizer (test/cdk/auth.test.ts).
    template.resourceCountIs('AWS::Lambda::Function', FUNCTION_COUNT);
    for (const route of routesWithOwnFunction) {
      const fn = stack.api.functions.get(route.functionName);
      expect(fn, route.functionName).toBeDefined();
      expect(resources[logicalIdOf(stack, fn!)]?.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Handler: `index.${route.handler}`,
        Architectures: ['arm64'],
        Timeout: route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
        MemorySize: route.memoryMb ?? DEFAULT_MEMORY_MB,
        Description: `${route.method} ${route.path}`,
      });
    }
  });

  it("runs a deprecated path's method on its successor's function", () => {
    const deprecated = routes.filter((r) => r.supersededBy);
    expect(deprecated.length).toBeGreaterThan(0);
    for (const route of deprecated) {
      const successor = routes.find((r) => `${r.method} ${r.path}` === route.supersededBy)!;
      expect(stack.api.functions.get(route.functionName), route.functionName).toBe(
        stack.api.functions.get(successor.functionName),
      );
    }
  });

  it('creates one method per route with its HTTP method and path, proxying to its function', () => {
    // Besides the CORS preflights (MOCK OPTIONS methods, test/cdk/cors.test.ts).
    const methods = routeMethods().map(([, m]) => {
      const p = m.Properties as Record<string, unknown>;
      expect(p).toMatchObject({
        ApiKeyRequired: false,
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      return `${p.HttpMethod} ${resourcePath(p.ResourceId) || '/'} -> ${integrationTarget(p.Integration)}`;
    });
    const expected = routes.map(
      (r) => `${r.method} ${r.path} -> ${logicalIdOf(stack, stack.api.functions.get(r.functionName)!)}`,
    );
    expect(methods.sort()).toEqual(expected.sort());
  });

  it('reuses one API resource per distinct path prefix', () => {
    const prefixes = new Set(
      routes.flatMap((r) =>
        r.path
          .split('/')
          .slice(1)
          .filter(Boolean) // `/` is the API's root resource, not a resource of its own
          .map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`),
      ),
    );
    template.resourceCountIs('AWS::ApiGateway::Resource', prefixes.size);
  });

  it('lets API Gateway invoke each function once, scoped to its own method and path', () => {
    // Plus API Gateway's permission to invoke the authorizer (test/cdk/auth.test.ts).
    template.resourceCountIs('AWS::Lambda::Permission', routes.length + 1);
    const authorizerId = logicalIdOf(stack, stack.api.auth.function);
    const routePermissions = ofType('AWS::Lambda::Permission').filter(
      ([, permission]) => !JSON.stringify(permission.Properties.FunctionName).includes(authorizerId),
    );
    const permissions = routePermissions.map(([, permission]) => {
      expect(permission.Properties).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
      });
      const target = (permission.Properties.FunctionName as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
      const arnParts = (permission.Properties.SourceArn as { 'Fn::Join': [string, unknown[]] })[
        'Fn::Join'
      ][1];
      return `${target} ${arnParts.at(-1)}`;
    });
    const expected = routes.map((r) => {
      const fnId = logicalIdOf(stack, stack.api.functions.get(r.functionName)!);
      return `${fnId} /${r.method}${r.path.replace(/\{[^}]+\}/g, '*')}`;
    });
    expect(permissions.sort()).toEqual(expected.sort());
  });
});

describe('functions', () => {
  it('run under the role of their group; no role carries a managed policy', () => {
    const groups: FunctionGroup[] = ['authorizer', 'oauth', 'publicPages', 'reader', 'writer', 'runner'];
    expect([...stack.roles.all.keys()].sort()).toEqual([...groups].sort());
    // The group roles, the workflows' and the schedules', API Gateway's account logging role, and
    // the query-run role Athena runs as (assumed per run, never by a function directly).
    template.resourceCountIs('AWS::IAM::Role', groups.length + 4);
    for (const route of routes) {
      const fn = resources[logicalIdOf(stack, stack.api.functions.get(route.functionName)!)]!;
      expect(fn.Properties.Role, route.functionName).toEqual({
        'Fn::GetAtt': [roleIdOf(functionGroupOf(route)), 'Arn'],
      });
    }
    expect(resources[runnerId]?.Properties.Role).toEqual({ 'Fn::GetAtt': [roleIdOf('runner'), 'Arn'] });
    for (const group of groups) {
      expect(resources[roleIdOf(group)]?.Properties.ManagedPolicyArns, group).toBeUndefined();
      expect(resources[roleIdOf(group)]?.Properties.AssumeRolePolicyDocument).toMatchObject({
        Statement: [expect.objectContaining({ Principal: { Service: 'lambda.amazonaws.com' } })],
      });
    }
    // Grants are inline in the roles: no separate policy resources.
    template.resourceCountIs('AWS::IAM::Policy', 0);
  });

  it('each write only to their own log group', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const roleId = (fn.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
      const logs = statementsOf(roleId).find((st) => actionsOf(st).includes('logs:PutLogEvents'));
      expect(JSON.stringify(logs?.Resource)).toContain(logGroupId);
    }
  });

  it('get the table names and runtime settings through the environment', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables).toMatchObject(BASE_FUNCTION_ENVIRONMENT);
      expect(variables).toMatchObject({
        SERVICE_RUNTIME: 'aws',
        POWERTOOLS_SERVICE_NAME: 'onchain-sql-service',
        NODE_OPTIONS: '--enable-source-maps',
        LOG_LEVEL: 'INFO',
      });
      for (const def of TABLE_DEFINITIONS) {
        const tableId = logicalIdOf(stack, stack.data.tables.get(def.logicalId)!);
        expect(variables[def.envVar]).toEqual({ Ref: tableId });
      }
    }
  });

  it('get the workflow settings and the runner ARN through the environment', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(FUNCTION_COUNT);
    for (const [id, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables, id).toMatchObject({
        STATE_MACHINE_ROLE_ARN: { 'Fn::GetAtt': [workflowRoleId, 'Arn'] },
        STATE_MACHINE_PREFIX: stack.executions.stateMachinePrefix,
        QUERY_TIMEOUT_SECONDS: String(QUERY_TIMEOUT_SECONDS),
      });
      expect(variables.STATE_MACHINE_STACK_TAG, id).toBe(`${WORKFLOW_STACK_TAG}=TestService`);
      expect(variables.STATE_MACHINE_LOG_GROUP_ARN, id).toEqual({
        'Fn::GetAtt': [logicalIdOf(stack, stack.executions.workflowLogs), 'Arn'],
      });
      // Built from the runner's fixed name (the runner needs it too: it starts workflows).
      expect(JSON.stringify(variables.NODE_RUNNER_ARN), id).toContain(
        `:function:${stack.executions.stateMachinePrefix}-node-runner`,
      );
    }
  });

  it('log to their own log group kept for one month', () => {
    // Plus the API's access logs and the generated workflows' logs.
    template.resourceCountIs('AWS::Logs::LogGroup', FUNCTION_COUNT + 2);
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(resources[logGroupId]?.Properties).toMatchObject({ RetentionInDays: 30 });
    }
  });
});

/** `arn:<partition>:states:<region>:<account>:<resource>` as CloudFormation gets it. */
const statesArn = (resource: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':states:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:${resource}`,
    ],
  ],
});

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };

/** The statements of a role's inline policies. */
function statementsOf(roleId: string): Statement[] {
  const policies = (resources[roleId]?.Properties.Policies ?? []) as {
    PolicyDocument: { Statement: Statement[] };
  }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

/** Every statement of every role, with the role it belongs to. */
function policyStatements(): { roles: unknown; statement: Statement }[] {
  return ofType('AWS::IAM::Role').flatMap(([id]) =>
    statementsOf(id).map((statement) => ({ roles: [{ Ref: id }], statement })),
  );
}

const actionsOf = (statement: Statement) => [statement.Action].flat();

describe('query executions (Step Functions workflows)', () => {
  const prefix = stack.executions.stateMachinePrefix;

  it('has a node-runner function: Node 22 arm64, 15 minutes, 1 GB, its own log group', () => {
    expect(resources[runnerId]?.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Handler: `index.${RUNNER_HANDLER}`,
      Architectures: ['arm64'],
      Timeout: 900,
      MemorySize: 1024,
    });
    expect(RUNNER_ENTRY).toBe('functions/runner/handler.ts');
    // The workflow's RunQuery Task times out at the query limit + 60 s: no later than the runner.
    expect(QUERY_TIMEOUT_SECONDS + 60).toBeLessThanOrEqual(900);
    const runner = resources[runnerId]!;
    const logGroupId = (runner.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(resources[logGroupId]?.Properties).toMatchObject({ RetentionInDays: 30 });
    // Not an API route: no method and no resource-based invoke permission.
    expect(JSON.stringify(ofType('AWS::ApiGateway::Method'))).not.toContain(runnerId);
    expect(JSON.stringify(ofType('AWS::Lambda::Permission'))).not.toContain(runnerId);
  });

  it('runs generated state machines under a role only Step Functions assumes', () => {
    expect(resources[workflowRoleId]?.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'states.amazonaws.com' } },
      ],
    });
    expect(resources[workflowRoleId]?.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('lets the workflow and schedule roles invoke the runner (unqualified) and nothing else', () => {
    const runnerArn = `:function:${prefix}-node-runner`;
    const invokers = policyStatements().filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('lambda:')),
    );
    expect(invokers.map(({ roles }) => roles)).toEqual([
      [{ Ref: workflowRoleId }],
      [{ Ref: schedulerRoleId }],
    ]);
    for (const { statement } of invokers) {
      expect(statement.Action).toBe('lambda:InvokeFunction');
      expect(JSON.stringify(statement.Resource)).toContain(runnerArn);
      expect(JSON.stringify(statement.Resource)).not.toContain(':*');
    }
    // Beyond invoking, the workflow role may only deliver its logs.
    expect(
      statementsOf(workflowRoleId)
        .flatMap(actionsOf)
        .filter((a) => !a.startsWith('logs:')),
    ).toEqual(['lambda:InvokeFunction']);
  });

  it('lets writers and the runner create and start only this stack’s workflows, passing only the workflow role', () => {
    const stateActions = (group: FunctionGroup) =>
      statementsOf(roleIdOf(group))
        .filter((st) => actionsOf(st).some((a) => a.startsWith('states:')))
        .map((st) => ({ actions: actionsOf(st).sort(), resource: st.Resource }));
    // Cancels answer parked tasks too (SendTaskSuccess): a pipeline's waiting nodes, a queued
    // execution's slot wait.
    expect(stateActions('writer')).toEqual([
      {
        actions: [
          'states:CreateStateMachine',
          'states:SendTaskSuccess',
          'states:StartExecution',
          'states:TagResource',
        ],
        resource: statesArn(`stateMachine:${prefix}-*`),
      },
    ]);
    // The runner also answers the pipeline gates' and the slot gate's waiting tasks.
    expect(
      stateActions('runner')
        .flatMap((st) => st.actions)
        .sort(),
    ).toEqual([
      'states:CreateStateMachine',
      'states:SendTaskSuccess',
      'states:StartExecution',
      'states:TagResource',
    ]);
    // Granted nowhere: what no code calls.
    const everything = JSON.stringify(policyStatements());
    for (const unused of [
      'states:DescribeStateMachine',
      'states:DescribeExecution',
      'states:StopExecution',
      'states:SendTaskFailure',
      'states:SendTaskHeartbeat',
      'scheduler:GetSchedule',
      'dynamodb:Scan',
    ]) {
      expect(everything, unused).not.toContain(`"${unused}"`);
    }
    for (const group of ['writer', 'runner'] as const) {
      const passes = statementsOf(roleIdOf(group)).filter((st) => actionsOf(st).includes('iam:PassRole'));
      expect(
        passes
          .flatMap((st) => [st.Resource].flat())
          .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
      ).toEqual([{ 'Fn::GetAtt': [schedulerRoleId, 'Arn'] }, { 'Fn::GetAtt': [workflowRoleId, 'Arn'] }]);
    }
    // Read-only routes, public pages, OAuth and the authorizer never touch workflows or roles.
    for (const group of ['reader', 'publicPages', 'oauth', 'authorizer'] as const) {
      expect(
        statementsOf(roleIdOf(group))
          .flatMap(actionsOf)
          .filter((a) => /^(states|iam|scheduler):/.test(a)),
        group,
      ).toEqual([]);
    }
  });

  it('names state machines with a stack-unique prefix that leaves room for the 40-hex hash', () => {
    expect(prefix).toBe('TestService_wf');
    const long = 'A'.repeat(40);
    for (const name of ['S', 'OnchainSqlService', `${long}-one`, `${long}-two`, 'x'.repeat(128)]) {
      const generated = stateMachinePrefix(name);
      expect(generated.length, name).toBeLessThanOrEqual(STATE_MACHINE_PREFIX_MAX_LENGTH);
      expect(`${generated}-${'f'.repeat(40)}`.length).toBeLessThanOrEqual(80);
      expect(generated).toMatch(/^[A-Za-z0-9-]+_wf$/);
    }
    expect(stateMachinePrefix(`${long}-one`)).not.toBe(stateMachinePrefix(`${long}-two`));
  });
});

describe('DynamoDB', () => {
  it.each(TABLE_DEFINITIONS.map((d) => [d.logicalId, d] as const))('%s matches its definition', (_, def) => {
    const tableId = logicalIdOf(stack, stack.data.tables.get(def.logicalId)!);
    const table = resources[tableId]!;
    expect(table.DeletionPolicy).toBe('Retain');
    const keySchema = [
      { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
      ...(def.sortKey ? [{ AttributeName: def.sortKey.name, KeyType: 'RANGE' }] : []),
    ];
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: keySchema,
      Replicas: [{ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }],
      ...(def.timeToLiveAttribute && {
        TimeToLiveSpecification: { AttributeName: def.timeToLiveAttribute, Enabled: true },
      }),
    });
    const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown }[];
    expect(indexes.map((i) => [i.IndexName, i.KeySchema])).toEqual(
      def.globalSecondaryIndexes.map((gsi) => [
        gsi.indexName,
        [
          { AttributeName: gsi.partitionKey.name, KeyType: 'HASH' },
          ...(gsi.sortKey ? [{ AttributeName: gsi.sortKey.name, KeyType: 'RANGE' }] : []),
        ],
      ]),
    );
    const attributes = table.Properties.AttributeDefinitions as {
      AttributeName: string;
      AttributeType: string;
    }[];
    for (const key of [
      def.partitionKey,
      def.sortKey,
      ...def.globalSecondaryIndexes.flatMap((g) => [g.partitionKey, g.sortKey]),
    ]) {
      if (key) expect(attributes).toContainEqual({ AttributeName: key.name, AttributeType: key.type });
    }
  });
});

describe('API Gateway', () => {
  it('answers its own errors with the JSON error body, readable by browser pages', () => {
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', 4);
    const json = {
      'gatewayresponse.header.Content-Type': "'application/json'",
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
    };
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseParameters: json,
        ResponseTemplates: { 'application/json': '{"error":$context.error.messageString}' },
      });
    }
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
      ResponseParameters: json,
      ResponseTemplates: { 'application/json': '{"error":"Not found"}' },
    });
  });

  it("answers the stage throttle's 429 with Retry-After and a JSON error that says why", () => {
    const [throttled] = Object.values(
      template.findResources('AWS::ApiGateway::GatewayResponse', {
        Properties: { ResponseType: 'THROTTLED' },
      }),
    );
    expect(throttled?.Properties.ResponseParameters).toEqual({
      'gatewayresponse.header.Content-Type': "'application/json'",
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.Retry-After': "'1'",
    });
    // The template is sent as is (no VTL): it must be the JSON error body itself.
    const body = JSON.parse(throttled?.Properties.ResponseTemplates['application/json']);
    expect(body.error).toMatch(/50 a second, bursts of 100\)\. Try again in 1 s\.$/);
    expect(throttled?.Properties.StatusCode).toBeUndefined(); // THROTTLED's own 429
  });

  it('deploys a throttled prod stage and outputs its URL', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: STAGE_NAME,
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: THROTTLING.rateLimit,
          ThrottlingBurstLimit: THROTTLING.burstLimit,
        }),
      ],
    });
    template.hasOutput('ApiUrl', { Value: Match.anyValue() });
  });

  it('outputs the service table name for the admin CLI (--table-name)', () => {
    const tableId = logicalIdOf(stack, stack.data.tables.get('ServiceTable')!);
    template.hasOutput('ServiceTableName', { Value: { Ref: tableId } });
  });

  it('is regional, serves PNG as binary, compresses answers of 1 KiB and more, and logs access, errors and traces', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
      BinaryMediaTypes: ['image/png'],
      MinimumCompressionSize: 1024,
    });
    const accessLogsId = logicalIdOf(stack, stack.api.accessLogs);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      TracingEnabled: true,
      MethodSettings: [Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false })],
    });
    expect(JSON.stringify(ofType('AWS::ApiGateway::Stage'))).toContain(accessLogsId);
    expect(resources[accessLogsId]?.Properties).toMatchObject({ RetentionInDays: 30 });
    // API Gateway logs through the account's logging role; kept when the stack goes (shared setting).
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResource('AWS::ApiGateway::Account', { DeletionPolicy: 'Retain' });
    // Every route's method goes through the request validator (parameters and bodies); the CORS
    // preflights (MOCK) read neither.
    template.hasResourceProperties('AWS::ApiGateway::RequestValidator', {
      ValidateRequestBody: true,
      ValidateRequestParameters: true,
    });
    for (const [, method] of routeMethods()) {
      expect(method.Properties.RequestValidatorId).toBeDefined();
    }
  });
});
