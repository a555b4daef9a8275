import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { type FunctionGroup, functionGroupOf } from '../../lib/constructs/function-roles';
import { logicalIdOf, type PolicyStatementJson, roleStatements, synthServiceStack } from './helpers';

const { stack, template } = synthServiceStack();

/** The statements of the role a route's function (or the authorizer, or the runner) runs under. */
function grantsOf(functionName: string): PolicyStatementJson[] {
  const fn =
    functionName === 'Authorizer'
      ? stack.api.auth.function
      : functionName === 'NodeRunner'
        ? stack.executions.runner
        : stack.api.functions.get(functionName)!;
  const resource = template.toJSON().Resources[logicalIdOf(stack, fn)];
  return roleStatements(template, resource.Properties.Role['Fn::GetAtt'][0]);
}

const allowed = (statements: PolicyStatementJson[], service: string) =>
  [
    ...new Set(
      statements
        .filter((st) => st.Effect === 'Allow')
        .flatMap((st) => [st.Action].flat())
        .filter((action) => action.startsWith(`${service}:`)),
    ),
  ].sort();

const denies = (statements: PolicyStatementJson[]) =>
  statements.filter((st) => st.Effect === 'Deny').map((st) => JSON.stringify(st.Condition));

const READ = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
const WRITE = ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

describe('each function group gets what its functions call', () => {
  it('groups routes by what they do: OAuth, public pages, read-only GETs, writers (MCP included)', () => {
    const group = (name: string) => functionGroupOf(routes.find((r) => r.functionName === name)!);
    const expected: Record<string, FunctionGroup> = {
      GetQuery: 'reader',
      GetExecutionResults: 'reader',
      DashboardPage: 'publicPages',
      HomePage: 'publicPages',
      Token: 'oauth',
      CreateQuery: 'writer',
      ExecuteSql: 'writer',
      McpGet: 'writer',
    };
    for (const [name, want] of Object.entries(expected)) expect(group(name), name).toBe(want);
  });

  it('a read-only route (GET /v1/query/{id}) reads items and results, writes only its request counts, never sees API keys', () => {
    const grants = grantsOf('GetQuery');
    expect(allowed(grants, 'dynamodb')).toEqual([...READ, 'dynamodb:UpdateItem'].sort());
    // The one write: counting the request against the account's rate limit, on RATE# items only.
    const writes = grants.filter(
      (st) => st.Effect === 'Allow' && [st.Action].flat().includes('dynamodb:UpdateItem'),
    );
    expect(writes).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } },
      }),
    ]);
    expect(allowed(grants, 's3')).toEqual(['s3:GetObject']);
    for (const service of ['states', 'scheduler', 'iam', 'secretsmanager', 'athena', 'glue'])
      expect(allowed(grants, service), service).toEqual([]);
    expect(denies(grants).join()).toContain('"dynamodb:LeadingKeys":["APIKEY#*"]');
    // Index queries by `ACCOUNT#<id>` (an account's keys, logins, token families) are refused too.
    expect(denies(grants).join()).toContain(
      '"ForAllValues:StringNotLike":{"dynamodb:LeadingKeys":["ACCOUNT#*#*"]}',
    );
  });

  it('the public dashboard page is read-only too', () => {
    const grants = grantsOf('DashboardPage');
    expect(allowed(grants, 'dynamodb')).toEqual(READ);
    expect(allowed(grants, 's3')).toEqual(['s3:GetObject']);
    expect(allowed(grants, 'states')).toEqual([]);
    expect(denies(grants).join()).toContain('APIKEY#*');
  });

  it('only the authorizer reads API keys: GetItem of key, account and token-family items, nothing else', () => {
    const grants = grantsOf('Authorizer');
    const dynamo = grants.filter((st) => [st.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toHaveLength(1);
    expect(dynamo[0]).toMatchObject({
      Effect: 'Allow',
      Action: 'dynamodb:GetItem',
      Condition: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'ACCOUNT#*', 'OAUTHFAMILY#*'] },
      },
    });
    expect(allowed(grants, 'secretsmanager')).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    expect(allowed(grants, 's3')).toEqual([]);
    // Every other role denies API-key items explicitly.
    for (const [group, role] of stack.roles.all) {
      if (group === 'authorizer') continue;
      expect(denies(roleStatements(template, logicalIdOf(stack, role))).join(), group).toContain('APIKEY#*');
    }
  });

  it('a writer (POST /v1/sql/execute) writes items, starts workflows and answers parked Tasks (cancels); of Athena it may only stop a cancelled query; of S3 it writes the views prefix (uploads)', () => {
    const grants = grantsOf('ExecuteSql');
    expect(allowed(grants, 'dynamodb')).toEqual([...READ, ...WRITE].sort());
    expect(allowed(grants, 'states')).toEqual([
      'states:CreateStateMachine',
      'states:SendTaskSuccess',
      'states:StartExecution',
      'states:TagResource',
    ]);
    expect(allowed(grants, 'athena')).toEqual(['athena:StopQueryExecution']);
    expect(allowed(grants, 's3')).toEqual([
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
    ]);
    const puts = grants.filter((st) => allowed([st], 's3').includes('s3:PutObject'));
    expect(JSON.stringify(stack.resolve(puts.map((st) => st.Resource)))).toMatch(/"\/views\/\*"\]/);
  });

  it('the node runner starts queries only as the query-run role, and cannot read the data lake itself', () => {
    const grants = grantsOf('NodeRunner');
    expect(allowed(grants, 'athena')).toEqual([
      'athena:GetQueryExecution',
      'athena:GetQueryResults',
      'athena:StopQueryExecution',
    ]);
    const assume = grants.filter((st) => allowed([st], 'sts').length);
    expect(assume.map((st) => st.Action)).toEqual(['sts:AssumeRole']);
    expect(stack.resolve(assume[0]!.Resource)).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack, stack.queryEngine.runRole), 'Arn'],
    });
    const glue = JSON.stringify(
      stack.resolve(grants.filter((st) => allowed([st], 'glue').length).map((st) => st.Resource)),
    );
    expect(glue).not.toContain('ethereum');
    const objects = JSON.stringify(stack.resolve(grants.map((st) => st.Resource)));
    expect(objects).not.toContain('/tables/*');
    // No other function may assume it.
    const others = roleStatements(template).filter((st) => allowed([st], 'sts').length);
    expect(others).toHaveLength(1);
  });

  it('the query-run role reads named Glue tables, the view versions and the tier workgroups only', () => {
    const id = logicalIdOf(stack, stack.queryEngine.runRole);
    const grants = roleStatements(template, id);
    expect(allowed(grants, 'athena')).toEqual(['athena:GetQueryExecution', 'athena:StartQueryExecution']);
    const glue = JSON.stringify(
      stack.resolve(grants.filter((st) => allowed([st], 'glue').length).map((st) => st.Resource)),
    );
    expect(allowed(grants, 'glue').every((action) => action.startsWith('glue:Get'))).toBe(true);
    expect(glue).toContain(':table/ethereum/transactions');
    // The only wildcard: the views database, whose tables are view versions made at run time (each
    // run's session policy narrows it to the versions that run resolved).
    const views = stack.queryEngine.viewsDatabaseName;
    expect(glue.replaceAll(`table/${views}/*`, '')).not.toMatch(/table\/[a-z0-9_]+\/\*/);
    expect(glue).toContain(`table/${views}/*`);
    const trust = template.toJSON().Resources[id].Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([
      expect.objectContaining({ Action: 'sts:AssumeRole', Principal: { AWS: expect.anything() } }),
    ]);
    expect(template.toJSON().Resources[id].Properties.MaxSessionDuration).toBe(3600);
  });

  it('the runner writes view versions and the upload routes their generations, in the views database only; readers touch none', () => {
    const glueActions = (name: string) => allowed(grantsOf(name), 'glue');
    for (const writer of ['NodeRunner', 'CreateUpload', 'ClearUpload', 'DeleteMaterializedView']) {
      expect(glueActions(writer), writer).toEqual(
        expect.arrayContaining(['glue:CreateTable', 'glue:DeleteTable']),
      );
      const tables = grantsOf(writer).filter((st) => allowed([st], 'glue').includes('glue:CreateTable'));
      expect(JSON.stringify(stack.resolve(tables.map((st) => st.Resource)))).toContain(
        `table/${stack.queryEngine.viewsDatabaseName}/*`,
      );
    }
    expect(glueActions('GetExecutionResults')).toEqual([]);
    expect(glueActions('ListUploads')).toEqual([]);
  });

  it('names every DynamoDB resource: the table and its index, never `index/*`; no role may Scan', () => {
    const all = JSON.stringify(roleStatements(template));
    expect(all).toContain('/index/gsi1');
    expect(all).not.toContain('/index/*');
    expect(all).not.toContain('dynamodb:Scan');
    expect(all).not.toContain('"dynamodb:*"');
  });
});
