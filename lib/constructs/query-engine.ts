import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { AccountPrincipal, type IGrantable, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PERFORMANCE_TIERS, type PerformanceTier } from '../../functions/core/engine';
import { DataLakeCatalog } from './data-lake-catalog';
import { InlinePolicyRole } from './function-roles';
import { acknowledge, acknowledgeOnGrantee } from './nag';

/** Where the data lake's tables live in the data bucket (functions/aws/catalog/glue-tables.ts). */
const DATA_PREFIX = 'tables/';
/** Where the workgroups write query results, and where result manifests go. */
const ATHENA_PREFIX = 'athena/';
const MANIFEST_PREFIX = 'results/';
/** Where view versions live in the data bucket (functions/aws/catalog/view-versions.ts). */
const VIEWS_PREFIX = 'views/';

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
  readonly accessLogsBucket: Bucket;
  readonly workGroups: Record<PerformanceTier, CfnWorkGroup>;
  readonly catalog: DataLakeCatalog;
  /** Glue database of materialized-view versions, one table per version (in the catalog's stack). */
  readonly viewsDatabaseName: string;
  /** What Athena runs as: the runner assumes it per run with a session policy (item 6, docs/aws.md). */
  readonly runRole: Role;
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    // S3 server access logs of both buckets (who read or wrote which object), kept one year.
    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
    });
    acknowledge(this.accessLogsBucket, 'AwsSolutions-S1', 'It is the access-log bucket of the other two');
    const bucketDefaults = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      // Users' results and the loaded chain data must survive a `cdk destroy`.
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: this.accessLogsBucket,
    };
    this.resultsBucket = new Bucket(this, 'Results', {
      ...bucketDefaults,
      serverAccessLogsPrefix: 'results/',
      lifecycleRules: [
        { id: 'expire-results', expiration: Duration.days(RESULT_RETENTION_DAYS) },
        { id: 'abort-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.dataBucket = new Bucket(this, 'Data', {
      ...bucketDefaults,
      serverAccessLogsPrefix: 'data/',
      // View versions are uploaded in parts; a runner that dies mid-upload leaves parts behind.
      lifecycleRules: [{ id: 'abort-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
    this.viewsDatabaseName = `${stack.stackName.toLowerCase().replace(/[^a-z0-9]/g, '_')}_views`;
    this.catalog = new DataLakeCatalog(this, 'Catalog', {
      dataBucket: this.dataBucket,
      viewsDatabaseName: this.viewsDatabaseName,
    });
    const workGroups = {} as Record<PerformanceTier, CfnWorkGroup>;
    const environment: Record<string, string> = {
      RESULTS_BUCKET: this.resultsBucket.bucketName,
      DATA_BUCKET: this.dataBucket.bucketName,
      VIEWS_DATABASE: this.viewsDatabaseName,
      // Minutes Athena may answer a deterministic, view-free query from an identical one's result
      // (`-c resultReuseMinutes=0` turns it off; Athena's own default age is 60).
      ATHENA_RESULT_REUSE_MINUTES: String(this.node.tryGetContext('resultReuseMinutes') ?? 60),
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
            outputLocation: this.resultsBucket.s3UrlForObject(`${ATHENA_PREFIX}${tier}/`),
            encryptionConfiguration: { encryptionOption: 'SSE_S3' },
          },
        },
      });
      environment[WORKGROUP_ENV[tier]] = name;
    }
    this.workGroups = workGroups;
    // Trusts the account; only roles granted sts:AssumeRole on it (the runner's) may assume it.
    // One hour: the most a role assumed from a Lambda's role may last (role chaining).
    this.runRole = new InlinePolicyRole(this, 'QueryRunRole', {
      assumedBy: new AccountPrincipal(stack.account),
      maxSessionDuration: Duration.hours(1),
      description: 'Athena runs of user SQL, narrowed per run by a session policy',
    });
    this.grantQueryData(this.runRole);
    environment.ATHENA_RUN_ROLE_ARN = this.runRole.roleArn;
    this.environment = environment;
  }

  /**
   * Running queries (the node runner): it starts each query with a session of the query-run role
   * (`sts:AssumeRole`, narrowed per run by a session policy), and itself polls and stops queries,
   * reads the CSV results and writes their manifests. It cannot read the data lake itself.
   */
  grantRunQueries(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['athena:GetQueryExecution', 'athena:GetQueryResults', 'athena:StopQueryExecution'],
        resources: this.workGroupArns(),
      }),
    );
    this.runRole.grantAssumeRole(grantee.grantPrincipal);
    // Result CSVs (read to index them; GetQueryResults reads them as the caller) and manifests.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.resultsBucket.arnForObjects(`${ATHENA_PREFIX}*`)],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.resultsBucket.arnForObjects(`${MANIFEST_PREFIX}*`)],
      }),
    );
    this.grantDeleteResults(grantee);
    this.acknowledgeResultObjects(grantee);
  }

  /**
   * The query-run role's own policy: the tier workgroups, the catalog's databases and tables
   * (named one by one) and the views database, reading the data lake and the view versions, and
   * the result location Athena writes with the caller's credentials. Each run's session policy
   * narrows the views to the versions it resolved (functions/aws/athena/run-isolation.ts).
   */
  private grantQueryData(role: Role): void {
    const stack = Stack.of(this);
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution'],
        resources: this.workGroupArns(),
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartition', 'glue:GetPartitions'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          ...this.catalog.databaseNames.map((name) =>
            stack.formatArn({ service: 'glue', resource: 'database', resourceName: name }),
          ),
          ...this.catalog.tableNames.map((name) =>
            stack.formatArn({ service: 'glue', resource: 'table', resourceName: name }),
          ),
          ...this.viewsArns(),
        ],
      }),
    );
    // Athena lists and reads the table locations, and writes results, as the caller (docs/aws.md).
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket', 's3:GetBucketLocation'],
        resources: [this.dataBucket.bucketArn],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [
          this.dataBucket.arnForObjects(`${DATA_PREFIX}*`),
          this.dataBucket.arnForObjects(`${VIEWS_PREFIX}*`),
        ],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'],
        resources: [this.resultsBucket.bucketArn],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.resultsBucket.arnForObjects(`${ATHENA_PREFIX}*`)],
      }),
    );
    this.acknowledgeViewVersions(role);
    acknowledge(
      role,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.dataBucket)}.Arn>/${DATA_PREFIX}*]`,
      'Objects under the data lake prefix of this stack’s own bucket (files are named by the loader)',
    );
    this.acknowledgeResultObjects(role);
  }

  /**
   * Writing stored versions (rows to the data bucket, a Glue table per version) and dropping them:
   * view versions when a refresh completes (runner), upload generations and their inserts (API).
   */
  grantManageViewVersions(grantee: IGrantable): void {
    this.grantViewVersionActions(grantee, ['glue:CreateTable'], ['s3:PutObject', 's3:AbortMultipartUpload']);
  }

  private grantViewVersionActions(grantee: IGrantable, glueActions: string[], s3Actions: string[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['glue:GetTables', 'glue:DeleteTable', ...glueActions],
        resources: this.viewsArns(),
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject', ...s3Actions],
        resources: [this.dataBucket.arnForObjects(`${VIEWS_PREFIX}*`)],
      }),
    );
    this.acknowledgeViewVersions(grantee);
  }

  /** The Glue catalog, the views database and its tables (named per version at run time). */
  private viewsArns(): string[] {
    const stack = Stack.of(this);
    const database = this.viewsDatabaseName;
    return [
      stack.formatArn({ service: 'glue', resource: 'catalog' }),
      stack.formatArn({ service: 'glue', resource: 'database', resourceName: database }),
      stack.formatArn({ service: 'glue', resource: 'table', resourceName: `${database}/*` }),
    ];
  }

  private acknowledgeViewVersions(grantee: IGrantable): void {
    acknowledgeOnGrantee(
      grantee,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/${this.viewsDatabaseName}/*]`,
      'View version tables are named by execution id at run time, in the views database only',
    );
    acknowledgeOnGrantee(
      grantee,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.dataBucket)}.Arn>/${VIEWS_PREFIX}*]`,
      'View version objects are named by execution id at run time, under this prefix of the data bucket',
    );
  }

  /** Stopping a cancelled execution's query at once (cancel routes; the runner would on its next poll). */
  grantStopQueries(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['athena:StopQueryExecution'], resources: this.workGroupArns() }),
    );
  }

  private workGroupArns(): string[] {
    const stack = Stack.of(this);
    return PERFORMANCE_TIERS.map((tier) =>
      stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.workGroups[tier].name }),
    );
  }

  /** Reading stored results: manifests and the Athena CSV files they index. */
  grantReadResults(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [
          this.resultsBucket.arnForObjects(`${MANIFEST_PREFIX}*`),
          this.resultsBucket.arnForObjects(`${ATHENA_PREFIX}*`),
        ],
      }),
    );
    this.acknowledgeResultObjects(grantee);
  }

  /** Deleting stored results (a result past its retention, a superseded view version). */
  grantDeleteResults(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject'],
        resources: [
          this.resultsBucket.arnForObjects(`${MANIFEST_PREFIX}*`),
          this.resultsBucket.arnForObjects(`${ATHENA_PREFIX}*`),
        ],
      }),
    );
  }

  private acknowledgeResultObjects(grantee: IGrantable): void {
    for (const prefix of [MANIFEST_PREFIX, ATHENA_PREFIX]) {
      acknowledgeOnGrantee(
        grantee,
        `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.resultsBucket)}.Arn>/${prefix}*]`,
        'Result objects are named by execution id at run time, under this prefix of the results bucket',
      );
    }
  }
}

function logicalIdOf(bucket: Bucket): string {
  return Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnBucket);
}
