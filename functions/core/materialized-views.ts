import type { PerformanceTier, ResultColumn } from './engine';
import type { WebhookTarget } from './webhooks';

/** The catalog (first part) of every materialized view's full name: `mv.<owner handle>.result_<name>`. */
export const MATERIALIZED_VIEW_CATALOG = 'mv';

/** result_ + lower-case letters, digits and underscores, 8-128 characters, no trailing underscore. */
export const MATERIALIZED_VIEW_NAME = /^result_[a-z0-9_]*[a-z0-9]$/;

export function materializedViewFullName(ownerHandle: string, name: string): string {
  return `${MATERIALIZED_VIEW_CATALOG}.${ownerHandle}.${name}`;
}

/** Whether an account may read the view: its own, or a public one. */
export function isReadableBy(view: MaterializedView, accountId: string): boolean {
  return !view.isPrivate || view.accountId === accountId;
}

/**
 * The view a custom endpoint serves (Dune's `GET /v1/endpoints/{handle}/{slug}/results`, the Dune
 * SDK's `client.custom.getResults`): the owner's view named after the slug, `result_` added unless
 * written and hyphens read as underscores (`daily-volume` is `mv.<handle>.result_daily_volume`).
 * Undefined when the slug cannot name a view.
 */
export function endpointViewName(handle: string, slug: string): string | undefined {
  const written = slug.toLowerCase().replaceAll('-', '_');
  const name = written.startsWith('result_') ? written : `result_${written}`;
  return MATERIALIZED_VIEW_NAME.test(name) && name.length <= 128
    ? materializedViewFullName(handle.toLowerCase(), name)
    : undefined;
}

export interface RefreshSchedule {
  cronExpression: string;
  performance: PerformanceTier;
  /** The schedule stops after this time (ISO-8601), if set. */
  expiresAt?: string;
  /** Told how each scheduled refresh (a pipeline run) ended. */
  webhook?: WebhookTarget;
}

/** What a caller asks for when creating or updating the view of a query. */
export interface MaterializedViewSpec {
  /** `result_<name>`; the full name adds the owner: `mv.<owner>.result_<name>`. */
  name: string;
  queryId: number;
  /** Unset: a new view takes its query's privacy, an existing one keeps its own. */
  isPrivate?: boolean;
  tier: PerformanceTier;
  /** 5-field cron of scheduled refreshes; none when unset. */
  cronExpression?: string;
  /** Scheduled refreshes stop after this time (RFC 3339). */
  expiresAt?: string;
  /** Where each scheduled refresh posts how it ended (needs cronExpression). */
  webhook?: WebhookTarget;
}

export interface MaterializedView {
  fullName: string;
  name: string;
  accountId: string;
  ownerHandle: string;
  queryId: number;
  isPrivate: boolean;
  performance: PerformanceTier;
  schedule?: RefreshSchedule;
  /** The refresh whose result readers see; replaced atomically when a newer refresh completes. */
  currentExecutionId?: string;
  columns?: ResultColumn[];
  rowCount?: number;
  tableSizeBytes?: number;
  lastRefreshedAt?: string;
  /** Newest refresh executions first (at most 10). */
  lastExecutionIds: string[];
  /** Why the last scheduled refresh could not start; cleared by the next one that starts. */
  scheduleError?: ScheduleError;
  createdAt: string;
  updatedAt: string;
}

/** A scheduled refresh that could not start, and the failed pipeline run that tells of it. */
export interface ScheduleError {
  at: string;
  message: string;
  pipelineExecutionId?: string;
}

/** What a refresh publishes when it completes. */
export interface PublishedVersion {
  executionId: string;
  columns: ResultColumn[];
  rowCount: number;
  tableSizeBytes: number;
  refreshedAt: string;
}

/** How many refresh executions a view remembers (`lastExecutionIds`). */
const REMEMBERED_REFRESHES = 10;

/** A view's `lastExecutionIds` once a refresh execution is recorded: newest first. */
export function withRefreshRecorded(lastExecutionIds: readonly string[], executionId: string): string[] {
  return [executionId, ...lastExecutionIds.filter((id) => id !== executionId)].slice(0, REMEMBERED_REFRESHES);
}

/** The view once `version` is published (what `MaterializedViewStore.publish` writes). */
export function withVersion(view: MaterializedView, version: PublishedVersion): MaterializedView {
  return {
    ...view,
    currentExecutionId: version.executionId,
    columns: version.columns,
    rowCount: version.rowCount,
    tableSizeBytes: version.tableSizeBytes,
    lastRefreshedAt: version.refreshedAt,
  };
}

export interface MaterializedViewStore {
  get(fullName: string): Promise<MaterializedView | undefined>;
  /** Creates the view; ConflictError when the name exists. */
  create(view: MaterializedView): Promise<void>;
  update(
    fullName: string,
    changes: Partial<Pick<MaterializedView, 'isPrivate' | 'performance' | 'schedule'>>,
    updatedAt: string,
  ): Promise<MaterializedView>;
  /**
   * Remembers a refresh execution (for `last_execution_ids`). `knownIds` is the view's list as the
   * caller last saw it, if it has it: when it is still current, no read is needed first.
   * Concurrent refreshes of a view are all remembered.
   */
  recordRefresh(fullName: string, executionId: string, knownIds?: readonly string[]): Promise<void>;
  /**
   * Remembers a refresh execution only if no other was recorded since the caller read `seenIds`
   * (the view's list): a single conditional write, false when another refresh came first (or the
   * view is gone). Two refreshes of a view that would start together so agree on one.
   */
  claimRefresh(fullName: string, executionId: string, seenIds: readonly string[]): Promise<boolean>;
  /**
   * Points readers at a completed refresh, unless a newer one is already published (a single
   * conditional write: readers see either the old or the new version, never a mix).
   */
  publish(fullName: string, version: PublishedVersion): Promise<boolean>;
  /**
   * Records why a scheduled refresh could not start, or (undefined) that one started since. A view
   * deleted meanwhile is left alone. Changes nothing else, not even `updatedAt`.
   */
  recordScheduleError(fullName: string, error: ScheduleError | undefined): Promise<void>;
  delete(fullName: string): Promise<void>;
  listByAccount(accountId: string): Promise<MaterializedView[]>;
  /** Every view an account may read: its own and other accounts' public ones. */
  listReadableBy(accountId: string): Promise<MaterializedView[]>;
}

/**
 * View versions for an engine that cannot read stored results directly (Athena reads tables, not
 * result files): each refresh's result is made readable as one version before it is published,
 * and versions no run can still be reading are dropped. The local engine reads result files and
 * needs none.
 */
export interface ViewVersionCatalog {
  /** Makes a completed refresh's result readable as a version of the view (idempotent). */
  prepare(fullName: string, version: { executionId: string; columns: ResultColumn[] }): Promise<void>;
  /**
   * After a publish: drops the view's versions other than the current one once no run can still
   * be reading them (runs resolve their versions at submit and last at most a tier's time limit).
   */
  retire(fullName: string, currentExecutionId: string | undefined, now?: Date): Promise<void>;
  /** The view is deleted: drops every version. */
  drop(fullName: string): Promise<void>;
}
