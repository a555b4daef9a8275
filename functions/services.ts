import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CachedApiKeys } from './accounts/api-key-cache';
import { CreditStandingCache } from './accounts/credit-standing-cache';
import { RateLimitCache } from './accounts/rate-limits';
import { DynamoAccountCounters } from './aws/dynamo/account-limits-store';
import { DynamoAccountStore } from './aws/dynamo/account-store';
import { DynamoCatalogStatsStore } from './aws/dynamo/catalog-stats-store';
import { DynamoDashboardStore } from './aws/dynamo/dashboard-store';
import { DynamoExecutionStore } from './aws/dynamo/execution-store';
import { DynamoIdempotencyStore } from './aws/dynamo/idempotency-store';
import { DynamoMaterializedViewStore } from './aws/dynamo/materialized-view-store';
import { DynamoMcpEventLog } from './aws/dynamo/mcp-event-store';
import { DynamoOAuthStore } from './aws/dynamo/oauth-store';
import { DynamoPipelineStore } from './aws/dynamo/pipeline-store';
import { DynamoQueryStore } from './aws/dynamo/query-store';
import { DynamoUploadStore } from './aws/dynamo/upload-store';
import { DynamoVisualizationStore } from './aws/dynamo/visualization-store';
import type { AccountStore } from './core/accounts';
import type { CatalogStatsStore } from './core/catalog-ports';
import { type ChangeWatch, REREAD_EVERY } from './core/change-watch';
import type { UsageStore } from './core/credits';
import type { DashboardStore } from './core/dashboards';
import type { DependencyGate } from './core/dependency-gate';
import type { QueryEngine, ResultStore } from './core/engine';
import type { ConcurrencyLimiter, ExecutionStore, ExecutionWatch } from './core/executions';
import type { IdempotencyStore } from './core/idempotency';
import type { SqlTableReferenceParser } from './core/lineage';
import type { MaterializedViewStore, ViewVersionCatalog } from './core/materialized-views';
import type { McpEventLog } from './core/mcp-events';
import type { OAuthStore } from './core/oauth';
import type { PipelineState, PipelineStore } from './core/pipelines';
import type { QueryStore } from './core/queries';
import type { RateLimitSettings, RequestCounter } from './core/rate-limits';
import type { RefreshScheduleRegistry } from './core/refresh-schedules';
import type { SlotGate } from './core/slot-gate';
import type { UploadFileStore, UploadStore } from './core/uploads';
import type { VisualizationStore } from './core/visualizations';
import type { Orchestrator } from './core/workflows';
import { BASE_TABLES } from './datasets/base-tables';
import { CatalogService } from './datasets/catalog-service';
import type { ExecutionConfig } from './executions/config';
import { FinishedExecutionCache } from './executions/finished-execution-cache';
import { MaterializedViewTables } from './matviews/catalog-entries';
import { SoleWriterViewCache } from './matviews/view-cache';
import type { SigningKeys } from './oauth/signing-keys';
import { SoleWriterPipelineCache } from './pipelines/pipeline-cache';
import { SoleWriterQueryCache } from './queries/query-cache';
import { UploadedTables } from './uploads/catalog-entries';

/**
 * The ports and services a handler needs. Each host builds them once: the local host calls
 * `configureServices` with local adapters at boot; in Lambda the first request builds the AWS
 * adapters from the environment (a dynamic import, so local-only code is never bundled).
 */
export interface Services extends HostAdapters {
  accounts: AccountStore;
  catalogStats: CatalogStatsStore;
  catalog: CatalogService;
  queries: QueryStore;
  executions: ExecutionStore;
  /** Wakes a reader waiting for an execution to change (a status read held until the run ends). */
  executionWatch: ExecutionWatch;
  /** The same for pipeline runs. */
  pipelineWatch: ChangeWatch<PipelineState>;
  materializedViews: MaterializedViewStore;
  pipelines: PipelineStore;
  limiter: ConcurrencyLimiter;
  usage: UsageStore;
  visualizations: VisualizationStore;
  dashboards: DashboardStore;
  mcpEvents: McpEventLog;
  oauth: OAuthStore;
  /** Idempotency-Key records of requests that start or create something. */
  idempotency: IdempotencyStore;
  /** Accounts' own request rate limits (accounts/rate-limits.ts). */
  rateLimits: RateLimitSettings;
  /** Uploaded tables' records (their rows are in `uploadFiles`). */
  uploads: UploadStore;
}

/** What differs between hosts: the SQL engine and its parser, result storage, the workflow runner. */
export interface HostAdapters {
  engine: QueryEngine;
  results: ResultStore;
  orchestrator: Orchestrator;
  dependencyGate: DependencyGate;
  slotGate: SlotGate;
  /** Where requests are counted against the rate limits: DynamoDB in AWS, memory locally. */
  requestCounter: RequestCounter;
  sqlParser: SqlTableReferenceParser;
  schedules: RefreshScheduleRegistry;
  config: ExecutionConfig;
  /** Access-token signing keys: a file under `.data/` locally, a Secrets Manager secret in AWS. */
  signingKeys: SigningKeys;
  /** Athena's view versions (Glue tables); absent locally, where the engine reads result files. */
  viewVersions?: ViewVersionCatalog;
  /** Uploaded tables' rows: files under `.data/` locally, S3 objects read through Glue in AWS. */
  uploadFiles: UploadFileStore;
}

/** Host settings that shape the shared stores without being services themselves. */
export interface StoreOptions {
  /**
   * Where every API-key revocation is visible at once (functions/local/key-revocations.ts): with
   * it, key lookups are cached in memory (accounts/api-key-cache.ts); without it (AWS), every
   * request reads its key.
   */
  apiKeyRevocations?: () => string;
  /**
   * This process is the only writer of execution and pipeline records (the local host), so it may
   * serve what it wrote from memory (executions/finished-execution-cache.ts,
   * pipelines/pipeline-cache.ts). Never in AWS.
   */
  soleWriter?: boolean;
  /**
   * Where every credit or rate limit another process sets is visible at once (the local host's
   * account-limits log): with it, with `soleWriter`, credit standings are kept in memory
   * (accounts/credit-standing-cache.ts) and accounts' rate limits until the next change.
   */
  accountLimitChanges?: () => string;
}

/** Key records are reused this long at most, even without a revocation. */
const API_KEY_CACHE_MS = 60_000;
/** An account's own rate limits are reused this long at most where changes are not logged (AWS). */
const RATE_LIMITS_CACHE_MS = 60_000;

/** Everything that talks to DynamoDB (dynalite locally) is the same code in both hosts. */
export function createServices(
  db: DynamoDBDocumentClient,
  tableName: string,
  host: HostAdapters,
  options: StoreOptions = {},
): Services {
  const catalogStats = new DynamoCatalogStatsStore(db, tableName);
  const accounts = new DynamoAccountStore(db, tableName);
  const counters = new DynamoAccountCounters(db, tableName);
  const viewStore = new DynamoMaterializedViewStore(db, tableName);
  // A process that writes every record itself keeps the records it reads (never in AWS).
  const materializedViews = options.soleWriter ? new SoleWriterViewCache(viewStore) : viewStore;
  const queryStore = new DynamoQueryStore(db, tableName);
  const uploads = new DynamoUploadStore(db, tableName);
  const pipelineStore = new DynamoPipelineStore(db, tableName);
  const pipelines = options.soleWriter ? new SoleWriterPipelineCache(pipelineStore) : pipelineStore;
  // Finished runs never change: their status and result reads skip DynamoDB (both hosts).
  const executions = new FinishedExecutionCache(
    new DynamoExecutionStore(db, tableName),
    10_000,
    options.soleWriter ?? false,
  );
  return {
    accounts: options.apiKeyRevocations
      ? new CachedApiKeys(accounts, {
          ttlMs: API_KEY_CACHE_MS,
          capacity: 10_000,
          revocations: options.apiKeyRevocations,
        })
      : accounts,
    catalogStats,
    catalog: new CatalogService(catalogStats, BASE_TABLES, [
      new MaterializedViewTables(materializedViews),
      new UploadedTables(uploads),
    ]),
    materializedViews,
    pipelines,
    pipelineWatch: pipelines instanceof SoleWriterPipelineCache ? pipelines : REREAD_EVERY,
    mcpEvents: new DynamoMcpEventLog(db, tableName),
    oauth: new DynamoOAuthStore(db, tableName),
    queries: options.soleWriter ? new SoleWriterQueryCache(queryStore) : queryStore,
    executions,
    executionWatch: executions,
    limiter: counters,
    usage:
      options.soleWriter && options.accountLimitChanges
        ? new CreditStandingCache(counters, { capacity: 10_000, limitChanges: options.accountLimitChanges })
        : counters,
    rateLimits: new RateLimitCache(counters, {
      // Seen at once where every change is logged (the local host); else within a minute (AWS).
      ttlMs: options.accountLimitChanges ? Number.POSITIVE_INFINITY : RATE_LIMITS_CACHE_MS,
      capacity: 10_000,
      ...(options.accountLimitChanges ? { changes: options.accountLimitChanges } : {}),
    }),
    visualizations: new DynamoVisualizationStore(db, tableName),
    dashboards: new DynamoDashboardStore(db, tableName),
    idempotency: new DynamoIdempotencyStore(db, tableName),
    uploads,
    ...host,
  };
}

let current: Promise<Services> | undefined;

export function configureServices(services: Services): void {
  current = Promise.resolve(services);
}

export function resetServices(): void {
  current = undefined;
}

export function getServices(): Promise<Services> {
  if (!current) {
    current = import('./aws/services').then((module) => module.createAwsServices());
    // A failed cold start must not poison every later request of this Lambda instance.
    current.catch(() => {
      current = undefined;
    });
  }
  return current;
}
