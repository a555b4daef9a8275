import { AthenaClient, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { AthenaQueryEngine } from '../../functions/aws/athena/athena-engine';
import { AthenaQueries } from '../../functions/aws/athena/athena-queries';
import {
  maxViewsPerRun,
  RunRoleSessions,
  runSessionPolicy,
  SESSION_POLICY_MAX_CHARS,
} from '../../functions/aws/athena/run-isolation';
import { viewTablePrefix, viewVersionTable } from '../../functions/aws/catalog/view-versions';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import { QueryFailure } from '../../functions/core/engine';
import { mockS3Objects } from '../support/s3-objects';

const ROLE_ARN = 'arn:aws:iam::123456789012:role/TestService-QueryRunRole';
const VIEWS_DB = 'testservice_views';
const DATA = 'testservice-data-1a2b3c';
const ALICE = `${viewTablePrefix('mv.alice.result_flows')}*`;
const ALICE_V2 = viewVersionTable('mv.alice.result_flows', '01HKZJ0000000000000000000B');
const BOB_PRIVATE = viewVersionTable('mv.bob.result_secret', '01HKZJ0000000000000000000C');
const CAROL_PUBLIC = viewVersionTable('mv.carol.result_public', '01HKZJ0000000000000000000D');

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
}

/** IAM's wildcard match (`*` any run, `?` one character); actions match case-insensitively. */
function globMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`, ignoreCase ? 'i' : '').test(value);
}

/**
 * What a session policy lets a request do, by IAM's evaluation of one policy: allowed when an
 * Allow statement matches the action and the resource (or the resource is outside NotResource),
 * and no Deny matches. The role's own policy is intersected on top in AWS (tested in test/cdk).
 */
function sessionAllows(policy: string, action: string, resource: string): boolean {
  const statements = (JSON.parse(policy) as { Statement: Statement[] }).Statement;
  const matches = (statement: Statement) => {
    const actions = [statement.Action].flat();
    if (!actions.some((pattern) => globMatches(pattern, action, true))) return false;
    if (statement.Resource !== undefined) {
      return [statement.Resource].flat().some((pattern) => globMatches(pattern, resource));
    }
    return ![statement.NotResource ?? []].flat().some((pattern) => globMatches(pattern, resource));
  };
  if (statements.some((statement) => statement.Effect === 'Deny' && matches(statement))) return false;
  return statements.some((statement) => statement.Effect === 'Allow' && matches(statement));
}

const glueTable = (database: string, table: string) =>
  `arn:aws:glue:us-east-1:123456789012:table/${database}/${table}`;
const object = (key: string) => `arn:aws:s3:::${DATA}/${key}`;

describe('the session policy of one Athena run', () => {
  const policy = runSessionPolicy('aws', VIEWS_DB, [ALICE]);

  it('reads the data lake and writes results, as the role allows', () => {
    expect(
      sessionAllows(
        policy,
        'athena:StartQueryExecution',
        'arn:aws:athena:us-east-1:123456789012:workgroup/TestService-medium',
      ),
    ).toBe(true);
    expect(sessionAllows(policy, 'glue:GetTable', glueTable('ethereum', 'transactions'))).toBe(true);
    expect(sessionAllows(policy, 'glue:GetPartitions', glueTable('ethereum', 'transactions'))).toBe(true);
    expect(
      sessionAllows(
        policy,
        's3:GetObject',
        object('tables/ethereum/transactions/block_date=2024-01-01/f.parquet'),
      ),
    ).toBe(true);
    expect(
      sessionAllows(policy, 's3:PutObject', 'arn:aws:s3:::testservice-results/athena/medium/q.csv'),
    ).toBe(true);
  });

  it('reads the versions of the views the run names, and no other view (another account’s private one)', () => {
    expect(sessionAllows(policy, 'glue:GetTable', glueTable(VIEWS_DB, ALICE_V2))).toBe(true);
    expect(sessionAllows(policy, 's3:GetObject', object(`views/${ALICE_V2}/rows.json.gz`))).toBe(true);
    for (const other of [BOB_PRIVATE, CAROL_PUBLIC]) {
      expect(sessionAllows(policy, 'glue:GetTable', glueTable(VIEWS_DB, other)), other).toBe(false);
      expect(sessionAllows(policy, 'glue:GetPartitions', glueTable(VIEWS_DB, other)), other).toBe(false);
      expect(sessionAllows(policy, 's3:GetObject', object(`views/${other}/rows.json.gz`)), other).toBe(false);
    }
  });

  it('cannot list the views database (information_schema, SHOW TABLES)', () => {
    const database = `arn:aws:glue:us-east-1:123456789012:database/${VIEWS_DB}`;
    expect(sessionAllows(policy, 'glue:GetTables', database)).toBe(false);
    expect(sessionAllows(policy, 'glue:GetTables', glueTable(VIEWS_DB, '*'))).toBe(false);
    expect(sessionAllows(runSessionPolicy('aws', VIEWS_DB, []), 'glue:GetDatabase', database)).toBe(false);
    // A run that reads no view cannot reach any version.
    const none = runSessionPolicy('aws', VIEWS_DB, []);
    expect(sessionAllows(none, 'glue:GetTable', glueTable(VIEWS_DB, ALICE_V2))).toBe(false);
    expect(sessionAllows(none, 's3:GetObject', object(`views/${ALICE_V2}/rows.json.gz`))).toBe(false);
  });

  it('fits IAM’s 2,048 characters for as many views as it admits, and never writes or deletes', () => {
    const most = maxViewsPerRun('aws', VIEWS_DB);
    expect(most).toBeGreaterThanOrEqual(12);
    const full = runSessionPolicy(
      'aws',
      VIEWS_DB,
      Array.from({ length: most }, (_, i) => `${viewTablePrefix(`mv.a.result_${i}`)}*`),
    );
    expect(full.length).toBeLessThanOrEqual(SESSION_POLICY_MAX_CHARS);
    console.info(`session policy: ${policy.length} characters with one view; up to ${most} views per run`);
    for (const action of ['glue:CreateTable', 'glue:DeleteTable', 's3:DeleteObject']) {
      expect(sessionAllows(full, action, glueTable(VIEWS_DB, ALICE_V2))).toBe(false);
    }
  });
});

const sts = mockClient(STSClient);
const athena = mockClient(AthenaClient);
const s3 = mockS3Objects();
let now = Date.parse('2026-11-24T12:00:00Z');
const credentials = (expiresInMs: number, key = 'ASIA-RUN') => ({
  Credentials: {
    AccessKeyId: key,
    SecretAccessKey: 'secret',
    SessionToken: 'token',
    Expiration: new Date(now + expiresInMs),
  },
});

describe('per-run sessions of the query-run role', () => {
  let sessions: RunRoleSessions;
  beforeEach(() => {
    sts.reset();
    athena.reset();
    now = Date.parse('2026-11-24T12:00:00Z');
    sessions = new RunRoleSessions(
      new STSClient({ region: 'us-east-1' }),
      { roleArn: ROLE_ARN, viewsDatabase: VIEWS_DB, longestRunMs: 40 * 60_000 },
      () => now,
    );
  });

  it('assumes the role for an hour with the run’s policy, and reuses a session while it outlasts a run', async () => {
    sts.on(AssumeRoleCommand).resolves(credentials(3_600_000));
    await sessions.clientFor('01HKZJ2683PHF9Q9PHHQ8FW4Q1', [ALICE]);
    const input = sts.commandCalls(AssumeRoleCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      RoleArn: ROLE_ARN,
      RoleSessionName: 'run-01HKZJ2683PHF9Q9PHHQ8FW4Q1',
      DurationSeconds: 3600,
      Policy: runSessionPolicy('aws', VIEWS_DB, [ALICE]),
    });
    const client = await sessions.clientFor('01HKZJ2683PHF9Q9PHHQ8FW4Q2', [ALICE]);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(1);
    expect((await client.config.credentials()).accessKeyId).toBe('ASIA-RUN');
    // Another set of views is another session.
    await sessions.clientFor('01HKZJ2683PHF9Q9PHHQ8FW4Q3', []);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
    // 25 minutes on, 35 are left: less than the longest run, so a new session.
    now += 25 * 60_000;
    sts.on(AssumeRoleCommand).resolves(credentials(3_600_000, 'ASIA-NEW'));
    const renewed = await sessions.clientFor('01HKZJ2683PHF9Q9PHHQ8FW4Q4', [ALICE]);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(3);
    expect((await renewed.config.credentials()).accessKeyId).toBe('ASIA-NEW');
  });

  it('refuses a run that names more views than one session policy holds, before assuming anything', async () => {
    const many = Array.from(
      { length: maxViewsPerRun('aws', VIEWS_DB) + 1 },
      (_, i) => `${viewTablePrefix(`mv.a.result_${i}`)}*`,
    );
    const failure = await sessions
      .clientFor('01HKZJ2683PHF9Q9PHHQ8FW4Q1', many)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailure);
    expect(failure).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(/reads \d+ materialized views/),
    });
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(0);
  });

  it('starts the query with the session of the views the SQL names, not every view the account may read', async () => {
    sts.on(AssumeRoleCommand).resolves(credentials(3_600_000));
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-isolated' });
    const engine = new AthenaQueryEngine(
      new AthenaQueries(new AthenaClient({ region: 'us-east-1' }), {
        workGroups: { medium: 'svc-medium', large: 'svc-large' },
      }),
      new S3ResultStore(s3.client, { bucket: 'svc-results' }),
      { now: () => new Date(now), viewsDatabase: VIEWS_DB, isolation: sessions },
    );
    const readable = [
      { catalog: 'mv', schema: 'alice', name: 'result_flows', executionId: '01HKZJ0000000000000000000B' },
      { catalog: 'mv', schema: 'carol', name: 'result_public', executionId: '01HKZJ0000000000000000000D' },
    ].map((relation) => ({ ...relation, columns: [{ name: 'n', type: 'bigint' }] }));
    await engine.submit({
      executionId: '01HKZJ2683PHF9Q9PHHQ8FW4Q1',
      accountId: 'alice',
      sql: 'SELECT n FROM mv.alice.result_flows',
      tier: 'medium',
      timeoutMs: 60_000,
      relations: readable,
    });
    expect(sts.commandCalls(AssumeRoleCommand)[0]!.args[0].input.Policy).toBe(
      runSessionPolicy('aws', VIEWS_DB, [ALICE]),
    );
    const started = athena.commandCalls(StartQueryExecutionCommand)[0]!;
    expect(await started.thisValue.config.credentials()).toMatchObject({ accessKeyId: 'ASIA-RUN' });
  });
});
