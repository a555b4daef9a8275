import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PERFORMANCE_TIERS, type PerformanceTier } from '../../functions/core/engine';
import { DataLakeCatalog } from './data-lake-catalog';

/** Results live as long as an execution's `expires_at` (the service default, 90 days). */
export const RESULT_RETENTION_DAYS = 90;

/**
 * Per-query scan cutoff per tier (Athena cancels the query past it and bills what it scanned):
 * medium 100 GiB ≈ $0.49, large 1 TiB ≈ $5 at $5/TB (docs/aws.md, "Tiers on Athena").
 */
export const BYTES_SCANNED_CUTOFF: Record<PerformanceTier, number> = {
  medium: 100 * 1024 ** 3,
  large: 1024 ** 4,
};

/** The environment variable holding each tier's workgroup name. */
export const WORKGROUP_ENV: Record<PerformanceTier, string> = {
  medium: 'ATHENA_WORKGROUP_MEDIUM',
  large: 'ATHENA_WORKGROUP_LARGE',
};

/**
 * What Athena needs: the onchain data lake (a data bucket and its Glue catalog), a results
 * bucket whose lifecycle is the executions' retention, and one workgroup per tier with engine
 * version 3, the result location and encryption enforced, and a bytes-scanned cutoff.
 */
export class QueryEngine extends Construct {
  readonly resultsBucket: Bucket;
  readonly dataBucket: Bucket;
  readonly workGroups: Record<PerformanceTier, CfnWorkGroup>;
  readonly catalog: DataLakeCatalog;
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    const bucketDefaults = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      // Users' results and the loaded chain data must survive a `cdk destroy`.
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.resultsBucket = new Bucket(this, 'Results', {
      ...bucketDefaults,
      lifecycleRules: [
        { id: 'expire-results', expiration: Duration.days(RESULT_RETENTION_DAYS) },
        { id: 'abort-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.dataBucket = new Bucket(this, 'Data', bucketDefaults);
    this.catalog = new DataLakeCatalog(this, 'Catalog', { dataBucket: this.dataBucket });
    const workGroups = {} as Record<PerformanceTier, CfnWorkGroup>;
    const environment: Record<string, string> = {
      RESULTS_BUCKET: this.resultsBucket.bucketName,
      DATA_BUCKET: this.dataBucket.bucketName,
    };
    for (const tier of PERFORMANCE_TIERS) {
      const name = `${stack.stackName}-${tier}`;
      workGroups[tier] = new CfnWorkGroup(this, `WorkGroup-${tier}`, {
        name,
        description: `Queries of the ${tier} tier`,
        state: 'ENABLED',
        // Deleting the stack drops the workgroup with its query history (results stay in S3).
        recursiveDeleteOption: true,
        workGroupConfiguration: {
          enforceWorkGroupConfiguration: true,
          engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
          publishCloudWatchMetricsEnabled: true,
          bytesScannedCutoffPerQuery: BYTES_SCANNED_CUTOFF[tier],
          resultConfiguration: {
            outputLocation: this.resultsBucket.s3UrlForObject(`athena/${tier}/`),
            encryptionConfiguration: { encryptionOption: 'SSE_S3' },
          },
        },
      });
      environment[WORKGROUP_ENV[tier]] = name;
    }
    this.workGroups = workGroups;
    this.environment = environment;
  }

  /** Running queries: the tier workgroups, the catalog's database and tables, both buckets. */
  grantRunQueries(grantee: IGrantable): void {
    const stack = Stack.of(this);
    const workGroupArns = PERFORMANCE_TIERS.map((tier) =>
      stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.workGroups[tier].name }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'athena:StartQueryExecution',
          'athena:GetQueryExecution',
          'athena:GetQueryResults',
          'athena:StopQueryExecution',
        ],
        resources: workGroupArns,
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'glue:GetDatabase',
          'glue:GetTable',
          'glue:GetTables',
          'glue:GetPartition',
          'glue:GetPartitions',
        ],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          ...this.catalog.databaseNames.flatMap((name) => [
            stack.formatArn({ service: 'glue', resource: 'database', resourceName: name }),
            stack.formatArn({ service: 'glue', resource: 'table', resourceName: `${name}/*` }),
          ]),
        ],
      }),
    );
    this.dataBucket.grantRead(grantee);
    this.resultsBucket.grantReadWrite(grantee);
  }

  /** Reading stored results (pages, CSV) and deleting them. */
  grantReadResults(grantee: IGrantable): void {
    this.resultsBucket.grantRead(grantee);
    this.resultsBucket.grantDelete(grantee);
  }
}
