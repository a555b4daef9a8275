import { Capture, Match } from 'aws-cdk-lib/assertions';
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
} from '../../lib/constructs/executions';
import {
  BASE_FUNCTION_ENVIRONMENT,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
} from '../../lib/constructs/service-function';
import { logicalIdOf, synthServiceStack } from './helpers';

type CfnResource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

const { stack, template } = synthServiceStack();
const resources = template.toJSON().Resources as Record<string, CfnResource>;
const apiRoleId = logicalIdOf(stack, stack.api.role);
const workflowRoleId = logicalIdOf(stack, stack.executions.workflowRole);
const runnerId = logicalIdOf(stack, stack.executions.runner);
const schedulerRoleId = logicalIdOf(stack, stack.executions.schedulerRole);
/** API functions, the node runner and the authorizer. */
const FUNCTION_COUNT = routes.length + 2;

function ofType(type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

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
    for (const route of routes) {
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

  it('creates one method per route with its HTTP method and path, proxying to its function', () => {
    const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => {
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
  it('all share exactly one IAM execution role (the others run the workflows and the schedules)', () => {
    template.resourceCountIs('AWS::IAM::Role', 3);
    const roleId = apiRoleId;
    expect(
      ofType('AWS::IAM::Role')
        .map(([id]) => id)
        .sort(),
    ).toEqual([roleId, workflowRoleId, schedulerRoleId].sort());
    expect(ofType('AWS::Lambda::Function')).toHaveLength(FUNCTION_COUNT);
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Role).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    }
    expect(resources[roleId]?.Properties).toMatchObject({
      AssumeRolePolicyDocument: {
        Statement: [expect.objectContaining({ Principal: { Service: 'lambda.amazonaws.com' } })],
      },
      ManagedPolicyArns: [expect.objectContaining({ 'Fn::Join': expect.anything() })],
    });
    expect(JSON.stringify(resources[roleId]?.Properties.ManagedPolicyArns)).toContain(
      'service-role/AWSLambdaBasicExecutionRole',
    );
  });

  it('the shared role reads and writes every table and its indexes', () => {
    const tableIds = ofType('AWS::DynamoDB::GlobalTable').map(([id]) => id);
    const roleId = apiRoleId;
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: Match.arrayWith(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']),
            Resource: Match.arrayWith(
              tableIds.flatMap((id) => [
                { 'Fn::GetAtt': [id, 'Arn'] },
                { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, '/index/*']] },
              ]),
            ),
          }),
        ]),
      },
    });
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

  it('get the workflow settings through the environment; API functions also get the runner ARN', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(FUNCTION_COUNT);
    for (const [id, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables, id).toMatchObject({
        STATE_MACHINE_ROLE_ARN: { 'Fn::GetAtt': [workflowRoleId, 'Arn'] },
        STATE_MACHINE_PREFIX: stack.executions.stateMachinePrefix,
        QUERY_TIMEOUT_SECONDS: String(QUERY_TIMEOUT_SECONDS),
      });
      // The runner cannot reference its own ARN (a dependency cycle) and does not need it.
      if (id === runnerId) expect(variables).not.toHaveProperty('NODE_RUNNER_ARN');
      else expect(variables.NODE_RUNNER_ARN, id).toEqual({ 'Fn::GetAtt': [runnerId, 'Arn'] });
    }
  });

  it('log to their own log group kept for one month', () => {
    template.resourceCountIs('AWS::Logs::LogGroup', FUNCTION_COUNT);
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

/** Every statement of every identity policy, with the roles it is attached to. */
function policyStatements(): { roles: unknown; statement: Statement }[] {
  return ofType('AWS::IAM::Policy').flatMap(([, policy]) =>
    (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement.map((statement) => ({
      roles: policy.Properties.Roles,
      statement,
    })),
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

  it('lets the workflow role invoke the runner (and its versions) and nothing else', () => {
    const statements = new Capture();
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: workflowRoleId }],
      PolicyDocument: { Statement: statements },
    });
    expect(statements.asArray()).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: [
          { 'Fn::GetAtt': [runnerId, 'Arn'] },
          { 'Fn::Join': ['', [{ 'Fn::GetAtt': [runnerId, 'Arn'] }, ':*']] },
        ],
      },
    ]);
    // No one else may invoke the runner but the refresh schedules' role, with the same statement.
    const invokers = policyStatements().filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('lambda:')),
    );
    expect(invokers.map(({ roles }) => roles)).toEqual([
      [{ Ref: workflowRoleId }],
      [{ Ref: schedulerRoleId }],
    ]);
    expect(invokers[1]?.statement).toEqual(invokers[0]?.statement);
  });

  it("lets the API role manage this stack's workflows only, and pass only the workflow role", () => {
    const statements = new Capture();
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: apiRoleId }],
      PolicyDocument: { Statement: statements },
    });
    const workflowStatements = (statements.asArray() as Statement[]).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('states:') || a.startsWith('iam:')),
    );
    expect(workflowStatements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          // CDK merges the dependency gates' SendTask* grant (same resource) into this statement.
          Action: [
            'states:CreateStateMachine',
            'states:DescribeStateMachine',
            'states:SendTaskFailure',
            'states:SendTaskHeartbeat',
            'states:SendTaskSuccess',
            'states:StartExecution',
            'states:TagResource',
          ],
          Resource: statesArn(`stateMachine:${prefix}-*`),
        },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:StopExecution'],
          Resource: statesArn(`execution:${prefix}-*:*`),
        },
        {
          Effect: 'Allow',
          Action: 'iam:PassRole',
          Resource: [{ 'Fn::GetAtt': [schedulerRoleId, 'Arn'] }, { 'Fn::GetAtt': [workflowRoleId, 'Arn'] }],
        },
      ]),
    );
    expect(workflowStatements).toHaveLength(3);
    // Exactly these: no other statement anywhere grants states:* or iam:*.
    const elsewhere = policyStatements().filter(
      ({ roles, statement }) =>
        JSON.stringify(roles) !== JSON.stringify([{ Ref: apiRoleId }]) &&
        actionsOf(statement).some((a) => a.startsWith('states:') || a.startsWith('iam:')),
    );
    expect(elsewhere).toEqual([]);
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
  it('answers its own errors with the JSON error body', () => {
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', 3);
    const json = { 'gatewayresponse.header.Content-Type': "'application/json'" };
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

  it('is regional and needs no account-wide CloudWatch role', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});
