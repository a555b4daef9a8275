import { createHash } from 'node:crypto';
import {
  type AthenaClient,
  type ColumnInfo,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  InvalidRequestException,
  type QueryExecution,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-athena';
import { type PerformanceTier, QueryFailure, type ResultColumn } from '../../core/engine';

/** Where Athena wrote a query's result. */
export interface ResultLocation {
  bucket: string;
  key: string;
}

export interface AthenaQueriesOptions {
  /** The stack's workgroup per tier (engine v3, enforced result location and scan cutoff). */
  workGroups: Record<PerformanceTier, string>;
  /** Database unqualified table names resolve in; DuneSQL names are schema-qualified, so optional. */
  database?: string;
  catalog?: string;
}

export interface AthenaStatistics {
  dataScannedBytes: number;
  engineMillis: number;
  queueMillis: number;
  reusedPreviousResult: boolean;
}

export type AthenaQueryStatus =
  | { state: 'queued' | 'running'; submittedAt?: Date; statistics: AthenaStatistics }
  | { state: 'succeeded'; output: ResultLocation; statistics: AthenaStatistics }
  | { state: 'failed'; failure: QueryFailure; statistics: AthenaStatistics };

/**
 * The Athena calls of one execution: start, status (one GetQueryExecution per poll; the caller
 * polls from a Step Functions Wait loop, never inside a Lambda), stop, and the result's columns.
 */
export class AthenaQueries {
  constructor(
    private readonly athena: AthenaClient,
    private readonly options: AthenaQueriesOptions,
  ) {}

  /**
   * Starts the query; idempotent per execution: the client request token is derived from the
   * execution id, so a retried start returns the same QueryExecutionId instead of running twice.
   */
  async start(request: {
    executionId: string;
    sql: string;
    tier: PerformanceTier;
    /** The client to start it with (the run's isolated session); the default one otherwise. */
    client?: AthenaClient;
    /**
     * Reuse a previous identical query's result up to this age (0 or absent = never). Safe only
     * for SQL whose answer depends on the tables alone (the engine decides).
     */
    reuseMinutes?: number;
  }): Promise<string> {
    const reuseMinutes = request.reuseMinutes ?? 0;
    try {
      const started = await (request.client ?? this.athena).send(
        new StartQueryExecutionCommand({
          QueryString: request.sql,
          WorkGroup: this.options.workGroups[request.tier],
          QueryExecutionContext: {
            Catalog: this.options.catalog ?? 'AwsDataCatalog',
            ...(this.options.database ? { Database: this.options.database } : {}),
          },
          ClientRequestToken: requestToken(request.executionId),
          ...(reuseMinutes > 0
            ? {
                ResultReuseConfiguration: {
                  ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: reuseMinutes },
                },
              }
            : {}),
        }),
      );
      return started.QueryExecutionId!;
    } catch (error) {
      throw startFailure(error);
    }
  }

  async status(queryExecutionId: string): Promise<AthenaQueryStatus> {
    const { QueryExecution: execution } = await this.athena.send(
      new GetQueryExecutionCommand({ QueryExecutionId: queryExecutionId }),
    );
    const state = execution?.Status?.State;
    const statistics = statisticsOf(execution);
    switch (state) {
      case 'QUEUED':
      case 'RUNNING':
        return {
          state: state === 'QUEUED' ? 'queued' : 'running',
          submittedAt: execution?.Status?.SubmissionDateTime,
          statistics,
        };
      case 'SUCCEEDED':
        return {
          state: 'succeeded',
          output: parseS3Uri(execution!.ResultConfiguration!.OutputLocation!),
          statistics,
        };
      case 'CANCELLED':
        return {
          state: 'failed',
          failure: new QueryFailure(
            'cancelled',
            'The query was cancelled.',
            undefined,
            statistics.engineMillis,
          ),
          statistics,
        };
      default:
        return { state: 'failed', failure: failureOf(execution, statistics.engineMillis), statistics };
    }
  }

  /** Stops a running query (cancel, or the tier's timeout); stopping a finished one is harmless. */
  async stop(queryExecutionId: string): Promise<void> {
    await this.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: queryExecutionId }));
  }

  /** The result's columns from GetQueryResults' metadata (one row asked for; the header row). */
  async columns(queryExecutionId: string): Promise<ResultColumn[]> {
    const results = await this.athena.send(
      new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, MaxResults: 1 }),
    );
    return (results.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map(columnOf);
  }
}

/** ClientRequestToken must be 32–128 characters: a hash of the execution id. */
function requestToken(executionId: string): string {
  return createHash('sha256').update(`execution:${executionId}`).digest('hex');
}

function columnOf(info: ColumnInfo): ResultColumn {
  const type = info.Type ?? 'varchar';
  const name = info.Name ?? info.Label ?? '';
  if (type === 'decimal') return { name, type: `decimal(${info.Precision ?? 38},${info.Scale ?? 0})` };
  return { name, type };
}

function statisticsOf(execution: QueryExecution | undefined): AthenaStatistics {
  const statistics = execution?.Statistics;
  return {
    dataScannedBytes: statistics?.DataScannedInBytes ?? 0,
    engineMillis: statistics?.EngineExecutionTimeInMillis ?? 0,
    queueMillis: statistics?.QueryQueueTimeInMillis ?? 0,
    reusedPreviousResult: statistics?.ResultReuseInformation?.ReusedPreviousResult ?? false,
  };
}

export function parseS3Uri(uri: string): ResultLocation {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) throw new Error(`Not an S3 URI: ${uri}`);
  return { bucket: match[1]!, key: match[2]! };
}

/** `line 3:14: …` (Trino's position prefix), anywhere in the message. */
const POSITION = /line (\d+):(\d+):\s*/;

/**
 * Maps a FAILED query to the local failure types (docs/aws.md, "Error mapping"): SYSTEM errors are
 * the engine's fault (`engine_unavailable`, retried), USER errors are the SQL's, with Trino's
 * `line L:C` position when the message carries one.
 */
export function failureOf(execution: QueryExecution | undefined, engineMillis = 0): QueryFailure {
  const error = execution?.Status?.AthenaError;
  const reason = error?.ErrorMessage ?? execution?.Status?.StateChangeReason ?? 'The query failed.';
  const category = error?.ErrorCategory;
  const type = error?.ErrorType ?? -1;
  const match = POSITION.exec(reason);
  const position = match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
  const message = reason.replace(/^[A-Z_]+:\s*/, '').replace(POSITION, '');
  if (type >= 0 && type <= 8) return new QueryFailure('resource_exhausted', message, position, engineMillis);
  if (type === 206 || type === 210) return new QueryFailure('timeout', message, position, engineMillis);
  if (/data scanned|bytes scanned|exceeded.*limit/i.test(reason)) {
    return new QueryFailure('resource_exhausted', message, position, engineMillis);
  }
  if (category === 1) {
    return new QueryFailure(
      'engine_unavailable',
      `Athena had an internal error (${reason}); this is not a problem with the SQL — retry later.`,
      undefined,
      engineMillis,
    );
  }
  if (/PERMISSION_DENIED|AccessDenied|not authorized|Access denied/i.test(reason)) {
    return new QueryFailure('permission_denied', message, position, engineMillis);
  }
  if (/^SYNTAX_ERROR|mismatched input|extraneous input|no viable alternative|Expecting:/i.test(reason)) {
    return new QueryFailure('syntax_error', message, position, engineMillis);
  }
  return new QueryFailure(position ? 'syntax_error' : 'execution_error', message, position, engineMillis);
}

/** A start refused by Athena: throttling and service trouble are transient, a bad request is not. */
function startFailure(error: unknown): QueryFailure | unknown {
  if (error instanceof TooManyRequestsException) {
    return new QueryFailure(
      'engine_unavailable',
      `Athena is throttling new queries (${error.message}); retry later.`,
    );
  }
  if (error instanceof InvalidRequestException) {
    return new QueryFailure('execution_error', error.message);
  }
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  if (status >= 500 || (error as { name?: string }).name === 'InternalServerException') {
    return new QueryFailure(
      'engine_unavailable',
      `Athena is unavailable (${(error as Error).message}); retry later.`,
    );
  }
  return error;
}
