import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { BYTES_SCANNED_CUTOFF, RESULT_RETENTION_DAYS } from '../../lib/constructs/query-engine';
import { FIXTURE_ENTRY, roleStatements, synthServiceStack } from './helpers';

const { stack, template } = synthServiceStack({
  routes: [
    { method: 'GET', path: '/v1/ping', entry: FIXTURE_ENTRY, handler: 'handler', functionName: 'Ping' },
  ],
});

describe('the query engine resources', () => {
  it('creates one Athena workgroup per tier: engine v3, enforced encrypted results, a scan cutoff', () => {
    for (const tier of ['medium', 'large'] as const) {
      template.hasResourceProperties('AWS::Athena::WorkGroup', {
        Name: `TestService-${tier}`,
        RecursiveDeleteOption: true,
        WorkGroupConfiguration: {
          EnforceWorkGroupConfiguration: true,
          EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
          PublishCloudWatchMetricsEnabled: true,
          BytesScannedCutoffPerQuery: BYTES_SCANNED_CUTOFF[tier],
          ResultConfiguration: {
            OutputLocation: Match.anyValue(),
            EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
          },
        },
      });
    }
    expect(BYTES_SCANNED_CUTOFF.large).toBeGreaterThan(BYTES_SCANNED_CUTOFF.medium);
  });

  it('keeps results for the executions retention and both buckets (private, TLS-only) on stack deletion', () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        LifecycleConfiguration: {
          Rules: Match.arrayWith([
            Match.objectLike({ ExpirationInDays: RESULT_RETENTION_DAYS, Status: 'Enabled' }),
          ]),
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
      }),
    });
    const buckets = template.findResources('AWS::S3::Bucket');
    // Results, data and the access-log bucket of both.
    expect(Object.values(buckets).map((bucket) => bucket.DeletionPolicy)).toEqual([
      'Retain',
      'Retain',
      'Retain',
    ]);
    for (const id of [stack.queryEngine.resultsBucket, stack.queryEngine.dataBucket].map((bucket) =>
      stack.getLogicalId(bucket.node.defaultChild as Parameters<typeof stack.getLogicalId>[0]),
    )) {
      expect(buckets[id]?.Properties.LoggingConfiguration, id).toMatchObject({
        DestinationBucketName: {
          Ref: stack.getLogicalId(
            stack.queryEngine.accessLogsBucket.node.defaultChild as Parameters<typeof stack.getLogicalId>[0],
          ),
        },
      });
    }
    const policies = template.findResources('AWS::S3::BucketPolicy');
    for (const policy of Object.values(policies)) {
      expect(JSON.stringify(policy)).toContain('aws:SecureTransport');
    }
    // The Glue catalog and the alarms.
    template.resourceCountIs('AWS::CloudFormation::Stack', 2);
  });

  it('hands functions the bucket, database and workgroup names, and scopes Athena to the tier workgroups', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    for (const fn of Object.values(functions)) {
      const variables = Object.keys(fn.Properties.Environment.Variables);
      expect(variables).toEqual(
        expect.arrayContaining([
          'RESULTS_BUCKET',
          'DATA_BUCKET',
          'ATHENA_WORKGROUP_MEDIUM',
          'ATHENA_WORKGROUP_LARGE',
          'VIEWS_DATABASE',
          'ATHENA_RUN_ROLE_ARN',
          'ATHENA_RESULT_REUSE_MINUTES',
        ]),
      );
      expect(fn.Properties.Environment.Variables.ATHENA_RESULT_REUSE_MINUTES).toBe('60');
    }
    const statements = roleStatements(template);
    const athena = statements.find((statement) =>
      [statement.Action].flat().includes('athena:StartQueryExecution'),
    );
    const resources = JSON.stringify(stack.resolve(athena?.Resource));
    expect(resources).toContain('workgroup/TestService-medium');
    expect(resources).toContain('workgroup/TestService-large');
    expect(resources).not.toContain('"*"');
  });
});

describe('the data lake catalog (nested stack)', () => {
  it('has one Glue database per schema and one table per base table', async () => {
    const { Template } = await import('aws-cdk-lib/assertions');
    const { BASE_TABLES } = await import('../../functions/datasets/base-tables');
    const catalog = Template.fromStack(stack.queryEngine.catalog);
    catalog.resourceCountIs('AWS::Glue::Table', BASE_TABLES.length);
    // One per schema, plus the database of materialized-view versions.
    catalog.resourceCountIs(
      'AWS::Glue::Database',
      new Set(BASE_TABLES.map((table) => table.schema.toLowerCase())).size + 1,
    );
    catalog.hasResourceProperties('AWS::Glue::Database', {
      DatabaseInput: Match.objectLike({ Name: stack.queryEngine.viewsDatabaseName }),
    });
    catalog.hasResourceProperties('AWS::Glue::Table', {
      DatabaseName: 'ethereum',
      TableInput: Match.objectLike({
        Name: 'transactions',
        PartitionKeys: [Match.objectLike({ Name: 'block_date', Type: 'date' })],
        Parameters: Match.objectLike({ 'projection.enabled': 'true' }),
      }),
    });
  });
});

describe('refresh schedules', () => {
  it('park undeliverable refreshes in an encrypted dead-letter queue the scheduler role may write to', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
    });
    const statements = roleStatements(template);
    expect(statements.some((statement) => [statement.Action].flat().includes('sqs:SendMessage'))).toBe(true);
    // Every function that manages schedules hands them the queue.
    const managers = Object.values(template.findResources('AWS::Lambda::Function'))
      .map((fn) => Object.keys(fn.Properties.Environment.Variables))
      .filter((variables) => variables.includes('SCHEDULE_GROUP_NAME'));
    expect(managers.length).toBeGreaterThan(0);
    for (const variables of managers) expect(variables).toContain('SCHEDULE_DLQ_ARN');
  });
});
