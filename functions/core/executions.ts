import type { ChangeWatch } from './change-watch';
import { type EngineRun, type PerformanceTier, QUERY_FAILURE_TYPES, type ResultColumn } from './engine';
import type { ParameterValues } from './parameters';
import type { InlinedView } from './query-views';

/** Execution states, as the Dune API names them. */
export const EXECUTION_STATES = [
  'QUERY_STATE_PENDING',
  'QUERY_STATE_EXECUTING',
  'QUERY_STATE_COMPLETED',
  'QUERY_STATE_FAILED',
  'QUERY_STATE_CANCELLED',
] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

export const TERMINAL_STATES: readonly ExecutionState[] = [
  'QUERY_STATE_COMPLETED',
  'QUERY_STATE_FAILED',
  'QUERY_STATE_CANCELLED',
];

export function isTerminal(state: ExecutionState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** Accepts the one-L spelling on input, as some docs write it. */
export function normalizeState(state: string): ExecutionState | undefined {
  const upper = state.toUpperCase();
  const normalized = upper === 'QUERY_STATE_CANCELED' ? 'QUERY_STATE_CANCELLED' : upper;
  return (EXECUTION_STATES as readonly string[]).includes(normalized)
    ? (normalized as ExecutionState)
    : undefined;
}

/** Why an execution failed: the engine's failure types, or a fault of the service itself. */
export const EXECUTION_ERROR_TYPES = [...QUERY_FAILURE_TYPES, 'internal_error'] as const;

export interface ExecutionError {
  type: (typeof EXECUTION_ERROR_TYPES)[number];
  message: string;
  metadata?: { line: number; column: number };
}

export interface ExecutionResultMetadata {
  columns: ResultColumn[];
  rowCount: number;
  resultBytes: number;
}

export interface Execution {
  executionId: string;
  accountId: string;
  /** 0 for ad-hoc SQL (POST /v1/sql/execute). */
  queryId: number;
  /** The SQL as run, parameters bound. */
  sql: string;
  /** The query views `sql` holds inlined, so an error inside one is reported where it is called. */
  queryViews?: InlinedView[];
  /** A saved query's parameter values in this run (defaults included). */
  parameters?: ParameterValues;
  tier: PerformanceTier;
  timeoutMs: number;
  state: ExecutionState;
  submittedAt: string;
  executionStartedAt?: string;
  executionEndedAt?: string;
  cancelledAt?: string;
  expiresAt: string;
  error?: ExecutionError;
  result?: ExecutionResultMetadata;
  engineMillis?: number;
  credits?: number;
  /**
   * The engine's id of the run (Athena's QueryExecutionId), set when the query was submitted to
   * the engine: from then on the execution holds one of the account's slots, even while it is
   * still PENDING in the engine's own queue.
   */
  engineRunId?: string;
  /**
   * What was left of the account's result storage quota, and the quota, when the query was
   * submitted: an engine that can only check a result once it is written (Athena) refuses one
   * past it.
   */
  storageBytesLeft?: number;
  storageBytesQuota?: number;
  /** Result columns the engine returns as JSON text (EngineRun.nestedColumns), set at submit. */
  nestedColumns?: { position: number; type: string }[];
  /** Set when a pipeline run created this execution. */
  pipelineExecutionId?: string;
  /** Set when this execution refreshes a materialized view: its result becomes the view's new version. */
  materializedViewName?: string;
}

export type ExecutionChanges = Partial<
  Pick<
    Execution,
    | 'state'
    | 'executionStartedAt'
    | 'executionEndedAt'
    | 'cancelledAt'
    | 'error'
    | 'result'
    | 'engineMillis'
    | 'credits'
    | 'engineRunId'
    | 'storageBytesLeft'
    | 'storageBytesQuota'
    | 'nestedColumns'
  >
>;

/** The execution's engine run, once it was submitted. */
export function engineRunOf(execution: Execution): EngineRun | undefined {
  return execution.engineRunId
    ? {
        executionId: execution.executionId,
        engineRunId: execution.engineRunId,
        tier: execution.tier,
        timeoutMs: execution.timeoutMs,
        sql: execution.sql,
        ...(execution.storageBytesLeft !== undefined ? { storageBytesLeft: execution.storageBytesLeft } : {}),
        ...(execution.storageBytesQuota !== undefined
          ? { storageBytesQuota: execution.storageBytesQuota }
          : {}),
        ...(execution.nestedColumns?.length ? { nestedColumns: execution.nestedColumns } : {}),
      }
    : undefined;
}

export interface ExecutionStore {
  create(execution: Execution): Promise<void>;
  get(executionId: string): Promise<Execution | undefined>;
  /**
   * Applies the changes only if the current state is one of `from` (a single conditional write);
   * returns the updated execution, or undefined when the state had moved on. A terminal state is
   * therefore never overwritten.
   */
  transition(
    executionId: string,
    from: readonly ExecutionState[],
    changes: ExecutionChanges,
  ): Promise<Execution | undefined>;
  /** Executions not yet finished (pending or executing), oldest first. */
  listActive(accountId?: string): Promise<Execution[]>;
}

/** Wakes a reader waiting for an execution to change (a status read held until the run ends). */
export type ExecutionWatch = ChangeWatch<ExecutionState>;

/** Per-account cap on executions running at once (a single counter item, atomically updated). */
export interface ConcurrencyLimiter {
  tryAcquire(accountId: string, limit: number): Promise<boolean>;
  release(accountId: string): Promise<void>;
  reset(accountId: string): Promise<void>;
  /** Slots the account holds now, as counted. */
  running(accountId: string): Promise<number>;
  /** Sets the count from `from` to `to`, only if it is still `from` (false otherwise). */
  correctRunning(accountId: string, from: number, to: number): Promise<boolean>;
}
