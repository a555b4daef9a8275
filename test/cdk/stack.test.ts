import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TABLE_DEFINITIONS } from '../../functions/aws/dynamo/table-definitions';
import { routes } from '../../functions/routes';
import { STAGE_NAME, THROTTLING } from '../../lib/constructs/api';
import {
  BASE_FUNCTION_ENVIRONMENT,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
} from '../../lib/constructs/api-function';
import { logicalIdOf, synthServiceStack } from './helpers';

type CfnResource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

const { stack, template } = synthServiceStack();
const resources = template.toJSON().Resources as Record<string, CfnResource>;

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
    template.resourceCountIs('AWS::Lambda::Function', routes.length);
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
        AuthorizationType: 'NONE',
        ApiKeyRequired: false,
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      return `${p.HttpMethod} ${resourcePath(p.ResourceId)} -> ${integrationTarget(p.Integration)}`;
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
          .map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`),
      ),
    );
    template.resourceCountIs('AWS::ApiGateway::Resource', prefixes.size);
  });

  it('lets API Gateway invoke each function once, scoped to its own method and path', () => {
    template.resourceCountIs('AWS::Lambda::Permission', routes.length);
    const permissions = ofType('AWS::Lambda::Permission').map(([, permission]) => {
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
  it('all share exactly one IAM execution role', () => {
    template.resourceCountIs('AWS::IAM::Role', 1);
    const [roleId] = ofType('AWS::IAM::Role')[0]!;
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
    const [roleId] = ofType('AWS::IAM::Role')[0]!;
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

  it('log to their own log group kept for one month', () => {
    template.resourceCountIs('AWS::Logs::LogGroup', routes.length);
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(resources[logGroupId]?.Properties).toMatchObject({ RetentionInDays: 30 });
    }
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

  it('is regional and needs no account-wide CloudWatch role', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});
