/**
 * The SQL engine port: DuckDB locally (functions/local/engine), Athena in AWS
 * (functions/aws/athena). A run is submitted, then polled for its status until it ends, so nothing
 * waits on a running query (in AWS a Step Functions Wait loop does the polling). An execution's
 * full result is written to result storage by the engine and read back page by page, never held
 * whole in memory.
 */
export const PERFORMANCE_TIERS = ['medium', 'large'] as const;
export type PerformanceTier = (typeof PERFORMANCE_TIERS)[number];

export interface EngineSubmitRequest {
  executionId: string;
  accountId: string;
  sql: string;
  tier: PerformanceTier;
  /** Wall-clock limit; past it the run is interrupted and fails with type `timeout`. */
  timeoutMs: number;
  /**
   * What is left of the account's result storage quota, and the quota itself: a result that would
   * not fit fails `resource_exhausted` while it is written (absent: no quota applies).
   */
  storageBytesLeft?: number;
  storageBytesQuota?: number;
  /**
   * Stored results the query may read by name (the account's materialized views and public ones),
   * resolved when the run starts: a refresh that completes meanwhile is seen by later runs only.
   */
  relations?: ReadableRelation[];
}

/** What a check of SQL that is not run needs (QueryEngine.check). */
export type EngineCheckRequest = Pick<EngineSubmitRequest, 'sql' | 'relations'>;

/**
 * Stored data exposed to SQL as `<catalog>.<schema>.<name>`: a materialized view's current refresh
 * (a stored execution result) or an uploaded table's current generation.
 */
export interface ReadableRelation {
  catalog: string;
  schema: string;
  name: string;
  /** The version read: the view's refresh execution, or the upload's generation. */
  executionId: string;
  /** Engine types for a view; an upload's declared DuneSQL types (core/uploads.ts). */
  columns: ResultColumn[];
  /** An uploaded table: its generation's data files (ids), text values the engine casts back. */
  uploadFiles?: string[];
}

export interface ResultColumn {
  name: string;
  /** Engine type name (e.g. VARCHAR, BIGINT, UHUGEINT, TIMESTAMP, DOUBLE). */
  type: string;
}

export interface EngineRunResult extends EngineUsage {
  columns: ResultColumn[];
  rowCount: number;
  /** Size of the stored result in bytes. */
  resultBytes: number;
}

/** What a run used, which credits are charged on (functions/core/credits.ts, `runCredits`). */
export interface EngineUsage {
  /** Time the engine spent running the query. */
  engineMillis: number;
  /** Data the engine read (Athena's DataScannedInBytes; absent locally, where nothing is billed per byte). */
  scannedBytes?: number;
  /** The engine answered from a previous identical run's result (Athena result reuse): nothing ran. */
  reusedResult?: boolean;
}

/** A submitted run: the execution and the engine's own id of the run (Athena's QueryExecutionId). */
export interface EngineRun {
  executionId: string;
  engineRunId: string;
  tier: PerformanceTier;
  /** The run's wall-clock limit, enforced by the engine (Athena: stopped at the next status past it). */
  timeoutMs: number;
  /** The SQL as the user wrote it (an engine that runs a translation maps error positions back to it). */
  sql: string;
  /** The storage quota left, and the quota, at submit (see EngineSubmitRequest). */
  storageBytesLeft?: number;
  storageBytesQuota?: number;
  /**
   * Output columns the engine returns as JSON text, by position, with their types (Athena: arrays,
   * maps and rows, which it would otherwise print in a lossy text form). Kept with the execution.
   */
  nestedColumns?: { position: number; type: string }[];
}

/**
 * A run's state. `queued`: waiting for engine capacity (the execution stays PENDING); `running`;
 * then `succeeded` with the stored result's metadata, or `failed` (cancel and timeout included).
 */
export type EngineRunStatus =
  | { state: 'queued' | 'running' }
  | { state: 'succeeded'; result: EngineRunResult }
  | { state: 'failed'; failure: QueryFailure };

export const QUERY_FAILURE_TYPES = [
  'syntax_error',
  'execution_error',
  'permission_denied',
  'timeout',
  'cancelled',
  'resource_exhausted',
  'engine_unavailable',
] as const;
export type QueryFailureType = (typeof QUERY_FAILURE_TYPES)[number];

/** A query that ran and failed. Not an HTTP error: the execution ends FAILED (or CANCELLED). */
export class QueryFailure extends Error {
  constructor(
    readonly type: QueryFailureType,
    message: string,
    readonly position?: { line: number; column: number },
    /** Engine time spent before failing (failed runs are charged for it). */
    readonly engineMillis = 0,
    /** Data read before failing (Athena bills a cancelled query for what it scanned). */
    readonly scannedBytes?: number,
  ) {
    super(message);
    this.name = 'QueryFailure';
  }

  /** Transient failures are worth retrying; SQL errors are not. */
  get retryable(): boolean {
    return this.type === 'engine_unavailable' || this.type === 'resource_exhausted';
  }
}

export interface QueryEngine {
  /**
   * Submits one read-only statement to run in the sandbox and returns at once (the run may wait
   * for engine capacity). Throws QueryFailure when the engine refuses it outright (storage quota
   * used up, engine unreachable or throttling).
   */
  submit(request: EngineSubmitRequest): Promise<EngineRun>;
  /**
   * The failure the engine would end a run of this SQL with before running it (syntax, a form or
   * function the dialect lacks, a comparison Trino refuses), found without running it; undefined
   * when none. Tables and columns are checked only when a run binds them.
   */
  check(request: EngineCheckRequest): Promise<QueryFailure | undefined>;
  /** The run's state now; a run the engine no longer knows fails `engine_unavailable`. */
  status(run: EngineRun): Promise<EngineRunStatus>;
  /** Stops the run (it then ends `failed` with type `cancelled`); harmless once it has ended. */
  cancel(run: EngineRun): Promise<void>;
  /**
   * Resolves when the run may have changed state, or after `maxMillis` at most. Engines that run
   * in this process implement it so a local poller wakes at once; others omit it.
   */
  waitForChange?(run: EngineRun, maxMillis: number): Promise<void>;
  close(): Promise<void>;
}

export type FilterValue = string | number;

/** Parsed `filters` expression of the results endpoint (see functions/core/result-filter.ts). */
export type FilterExpression =
  | { kind: 'and' | 'or'; left: FilterExpression; right: FilterExpression }
  | {
      kind: 'compare';
      column: string;
      operator: '=' | '!=' | '<>' | '<' | '<=' | '>' | '>=';
      value: FilterValue;
    }
  | { kind: 'like'; column: string; pattern: string }
  | { kind: 'in'; column: string; values: FilterValue[] }
  | { kind: 'null'; column: string; negated: boolean };

export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
}

export interface ResultPageRequest {
  executionId: string;
  limit: number;
  offset: number;
  /** Projection; all columns when absent. */
  columns?: string[];
  filters?: FilterExpression;
  sortBy?: SortKey[];
  /** Uniform sample of about this many rows (exclusive with limit/offset/filters). */
  sampleCount?: number;
}

/** JSON-ready values: 0x hex for binary, exact decimal strings for big integers, ISO-like timestamps. */
export type ResultValue = string | number | boolean | null | ResultValue[] | { [key: string]: ResultValue };

export interface ResultPage {
  columns: ResultColumn[];
  rows: Record<string, ResultValue>[];
  /** Rows matching the filters in the whole result (the whole result size without filters). */
  totalRowCount: number;
  /** Bytes of this page's values as stored (no JSON overhead). */
  pageBytes: number;
}

export interface ResultStore {
  readPage(request: ResultPageRequest): Promise<ResultPage>;
  /** Streams the page as CSV text (header line first). */
  readCsv(request: ResultPageRequest): Promise<{ csv: string; rowCount: number; totalRowCount: number }>;
  delete(executionId: string): Promise<void>;
  /**
   * A run's result was just stored, with the shape its engine reported: a store that would learn
   * a result's shape on its first read takes it from here, so the first page, usually asked for at
   * once, costs only the page.
   */
  warm?(executionId: string, shape: { columns: ResultColumn[]; rowCount: number }): Promise<void>;
}
