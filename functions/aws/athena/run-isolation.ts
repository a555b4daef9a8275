import { AthenaClient } from '@aws-sdk/client-athena';
import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';
import { QueryFailure } from '../../core/engine';

/**
 * Isolation enforced by IAM, not by reading SQL: every Athena run starts with credentials of the
 * stack's query-run role, assumed with a session policy that lets it read the data lake and only
 * the view versions this run resolved (its own views and public ones it names). Athena reads S3
 * and Glue with the credentials of whoever started the query, so SQL that names another
 * account's version table, or lists the views database, is refused by IAM. The session's
 * permissions are the intersection of the role's policy and this one, so it only narrows.
 */
export interface RunIsolationOptions {
  /** The query-run role (lib/constructs/query-engine.ts); its ARN also gives the partition. */
  roleArn: string;
  /** The Glue database of view versions. */
  viewsDatabase: string;
}

/** IAM caps an inline session policy at 2,048 characters of plaintext (docs/aws.md). */
export const SESSION_POLICY_MAX_CHARS = 2048;

/**
 * The session policy of one run. `viewTables` are the Glue table names (IAM wildcards allowed:
 * `v_<view hash>_*` is every version of one view) of the views it may read. Region, account,
 * database and bucket are wildcards: the role's own policy names them, and the intersection
 * keeps its limits while the characters go to the views.
 */
export function runSessionPolicy(partition: string, viewsDatabase: string, viewTables: readonly string[]) {
  const arn = (service: string, resource: string) => `arn:${partition}:${service}:*:*:${resource}`;
  const s3 = (key: string) => `arn:${partition}:s3:::*/${key}`;
  const statements: Record<string, unknown>[] = [
    {
      Effect: 'Allow',
      Action: [
        'athena:StartQueryExecution',
        's3:ListBucket*',
        's3:GetBucketLocation',
        's3:PutObject',
        's3:AbortMultipartUpload',
        's3:ListMultipartUploadParts',
      ],
      Resource: '*',
    },
    // Everything the role reads except the views: the data lake's databases, tables and objects.
    {
      Effect: 'Allow',
      Action: ['glue:Get*', 's3:GetObject'],
      NotResource: [
        arn('glue', `database/${viewsDatabase}`),
        arn('glue', `table/${viewsDatabase}/*`),
        s3('views/*'),
      ],
    },
  ];
  if (viewTables.length > 0) {
    statements.push({
      Effect: 'Allow',
      Action: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartition*', 's3:GetObject'],
      Resource: [
        arn('glue', `database/${viewsDatabase}`),
        ...viewTables.flatMap((table) => [
          arn('glue', `table/${viewsDatabase}/${table}`),
          s3(`views/${table}/*`),
        ]),
      ],
    });
  }
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
}

interface CachedClient {
  client: AthenaClient;
  expiresAt: number;
}

/**
 * Athena clients signed with the query-run role, one session per distinct policy. Sessions last
 * an hour (the most a role assumed from a Lambda role may: role chaining) and a client is reused
 * only while its credentials will outlast the longest run started with it.
 */
export class RunRoleSessions {
  private readonly clients = new Map<string, CachedClient>();

  constructor(
    private readonly sts: STSClient,
    private readonly options: RunIsolationOptions & {
      /** The longest a run may last (the largest tier's limit), plus a margin. */
      longestRunMs: number;
    },
    private readonly now: () => number = Date.now,
  ) {}

  get partition(): string {
    return this.options.roleArn.split(':')[1] ?? 'aws';
  }

  /** An Athena client whose queries may read only what `viewTables` adds to the data lake. */
  async clientFor(executionId: string, viewTables: readonly string[]): Promise<AthenaClient> {
    const policy = runSessionPolicy(this.partition, this.options.viewsDatabase, [...viewTables].sort());
    if (policy.length > SESSION_POLICY_MAX_CHARS) {
      throw new QueryFailure(
        'execution_error',
        `This query reads ${viewTables.length} materialized views; a query on this deployment can read about ${maxViewsPerRun(this.partition, this.options.viewsDatabase)} at once. Combine views in a view of its own, or split the query.`,
      );
    }
    const cached = this.clients.get(policy);
    if (cached && cached.expiresAt - this.options.longestRunMs > this.now()) return cached.client;
    const { Credentials: credentials } = await this.sts.send(
      new AssumeRoleCommand({
        RoleArn: this.options.roleArn,
        // [\w+=,.@-]{2,64}: the execution id, for CloudTrail.
        RoleSessionName: `run-${executionId}`.slice(0, 64),
        Policy: policy,
        DurationSeconds: 3600,
      }),
    );
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey) {
      throw new Error('AssumeRole returned no credentials.');
    }
    const client = new AthenaClient({
      credentials: {
        accessKeyId: credentials.AccessKeyId,
        secretAccessKey: credentials.SecretAccessKey,
        sessionToken: credentials.SessionToken,
        expiration: credentials.Expiration,
      },
    });
    const expiresAt = credentials.Expiration?.getTime() ?? this.now() + 3_600_000;
    if (this.clients.size >= 32) this.clients.delete(this.clients.keys().next().value!);
    this.clients.set(policy, { client, expiresAt });
    return client;
  }
}

/** How many views fit in one session policy (their patterns are all the same length). */
export function maxViewsPerRun(partition: string, viewsDatabase: string): number {
  const sample = `v_${'0'.repeat(16)}_*`;
  let count = 0;
  while (
    runSessionPolicy(partition, viewsDatabase, Array(count + 1).fill(sample)).length <=
    SESSION_POLICY_MAX_CHARS
  ) {
    count++;
  }
  return count;
}
