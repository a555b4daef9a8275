/**
 * The SQL engine port: DuckDB locally (functions/local/engine), Athena in AWS. An execution's
 * full result is written to result storage by the engine and read back page by page, never held
 * whole in memory.
 */
export const PERFORMANCE_TIERS = ['medium', 'large'] as const;
export type PerformanceTier = (typeof PERFORMANCE_TIERS)[number];

export interface EngineRunRequest {
  executionId: string;
  accountId: string;
  sql: string;
  tier: PerformanceTier;
  /** Wall-clock limit; past it the run is interrupted and fails with type `timeout`. */
  timeoutMs: number;
  /** Aborting interrupts the running query; the run fails with type `cancelled`. */
  signal?: AbortSignal;
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

/** A stored execution result exposed to SQL as `<catalog>.<schema>.<name>`. */
export interface ReadableRelation {
  catalog: string;
  schema: string;
  name: string;
  executionId: string;
  columns: ResultColumn[];
}

export interface ResultColumn {
  name: string;
  /** Engine type name (e.g. VARCHAR, BIGINT, UHUGEINT, TIMESTAMP, DOUBLE). */
  type: string;
}

export interface EngineRunResult {
  columns: ResultColumn[];
  rowCount: number;
  /** Size of the stored result in bytes. */
  resultBytes: number;
  /** Time the engine spent running the query (what credits are charged on). */
  engineMillis: number;
}

export type QueryFailureType =
  | 'syntax_error'
  | 'execution_error'
  | 'permission_denied'
  | 'timeout'
  | 'cancelled'
  | 'resource_exhausted'
  | 'engine_unavailable';

/** A query that ran and failed. Not an HTTP error: the execution ends FAILED (or CANCELLED). */
export class QueryFailure extends Error {
  constructor(
    readonly type: QueryFailureType,
    message: string,
    readonly position?: { line: number; column: number },
    /** Engine time spent before failing (failed runs are charged for it). */
    readonly engineMillis = 0,
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
  /** Runs one read-only statement in the sandbox and stores its result; throws QueryFailure. */
  run(request: EngineRunRequest): Promise<EngineRunResult>;
  /**
   * Stops the execution's run now if this engine holds it (the run then fails `cancelled`); a
   * no-op otherwise. The runner also watches the execution's state, so this only makes it faster.
   */
  cancel(executionId: string): Promise<void>;
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
}
