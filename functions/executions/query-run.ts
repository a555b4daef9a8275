import { billingPeriodOf, runCredits } from '../core/credits';
import { type EngineRun, type EngineRunResult, QueryFailure, type ReadableRelation } from '../core/engine';
import { type Execution, type ExecutionError, engineRunOf } from '../core/executions';
import { type Position, positionAsWritten } from '../core/query-views';
import { type QueryProgress, queryPollSeconds } from '../core/workflows';
import { logger } from '../http/logger';
import type { Services } from '../services';
import { failSlotWait, offerSlot, releaseSlot } from './slots';

/**
 * Running one execution's query on the engine, as the StartQuery and CheckQuery Task states of the
 * generated workflow do it: submit, then one status read per poll, so no function waits on a
 * running query (the workflow's Wait state does). The execution holds one of the account's slots
 * from submit until its outcome is recorded. It reads PENDING while the engine queues it and
 * EXECUTING once the engine runs it. Every state change is a single conditional write, so a cancel
 * that lands mid-run is never overwritten.
 */

/** Longest a status read waits for an in-process engine's run to change (local host only). */
const IN_PROCESS_STATUS_WAIT_MS = 1000;

const finished = (polls: number): QueryProgress => ({ status: 'finished', polls, wait_seconds: 0 });
const running = (polls: number): QueryProgress => ({
  status: 'running',
  polls,
  wait_seconds: queryPollSeconds(polls),
});

/**
 * Submits the query of an execution that holds a slot (as just read by the caller);
 * `readableBy(accountId, sql)` resolves the views and uploaded tables its SQL may read.
 */
export async function submitQuery(
  services: Services,
  execution: Execution,
  readableBy: (accountId: string, sql: string) => Promise<ReadableRelation[]>,
  /** The views and storage used, read already (while the slot was being taken). */
  prefetched?: Promise<SubmitInputs>,
): Promise<QueryProgress> {
  const { executionId } = execution;
  // A retried StartQuery (the previous invocation died after submitting) polls the run it made.
  if (execution.engineRunId) return running(0);
  if (execution.state !== 'QUERY_STATE_PENDING') {
    // Cancelled while it waited for its slot: give the slot back.
    await releaseSlot(services, execution.accountId);
    return finished(0);
  }
  // Outside the try: a store error here is the Task's to retry, not the query's failure. A view
  // the SQL reads that has nothing to read yet is the query's failure, as the engine's would be.
  let inputs: SubmitInputs;
  try {
    inputs = await (prefetched ?? submitInputs(services, execution, readableBy));
  } catch (error) {
    if (!(error instanceof QueryFailure)) throw error;
    await recordOutcome(services, execution, { state: 'failed', failure: error });
    return finished(0);
  }
  const [relations, storageBytes] = inputs;
  let run: EngineRun;
  const quota = {
    storageBytesLeft: services.config.storageBytesAllowed - storageBytes,
    storageBytesQuota: services.config.storageBytesAllowed,
  };
  try {
    run = await services.engine.submit({
      executionId,
      accountId: execution.accountId,
      sql: execution.sql,
      tier: execution.tier,
      timeoutMs: execution.timeoutMs,
      relations,
      // The storage quota is enforced as the result is written (DuckDB) or once it is (Athena).
      ...quota,
    });
  } catch (error) {
    await recordOutcome(services, execution, { state: 'failed', failure: error });
    return finished(0);
  }
  // Also recorded on a run cancelled meanwhile: CheckQuery charges what it used.
  const submitted = await services.executions.transition(
    executionId,
    ['QUERY_STATE_PENDING', 'QUERY_STATE_CANCELLED'],
    {
      engineRunId: run.engineRunId,
      ...quota,
      ...(run.nestedColumns?.length ? { nestedColumns: run.nestedColumns } : {}),
    },
  );
  // Cancelled while it was being submitted: stopped now rather than at the next status check
  // (which stops it too, if this fails), so it is charged for as little engine time as can be.
  if (submitted?.state === 'QUERY_STATE_CANCELLED') await services.engine.cancel(run).catch(() => undefined);
  // No longer queued: the account's next execution in line need not wait for this one to end.
  await offerSlot(services, execution.accountId);
  return running(0);
}

/** What a submit reads besides the execution: the views its SQL may read, the storage used. */
export type SubmitInputs = [ReadableRelation[], number];

/**
 * Reads what `submitQuery` needs. SQL that names no `mv` catalog cannot read a view, so the
 * lookup of the account's readable views is skipped for it (most queries).
 */
export function submitInputs(
  services: Services,
  execution: Execution,
  readableBy: (accountId: string, sql: string) => Promise<ReadableRelation[]>,
): Promise<SubmitInputs> {
  return Promise.all([
    readableBy(execution.accountId, execution.sql),
    services.usage.getStorageBytes(execution.accountId),
  ]);
}

/** One status read of the execution's run; records the outcome when the run has ended. */
export async function checkQuery(
  services: Services,
  executionId: string,
  polls: number,
  /** The execution as the caller just read it (saves a read), or undefined to read it here. */
  current?: Execution,
  /** A pipeline node's check: takes a completed run's last writes instead of awaiting them. */
  handOver?: HandOverWrites,
): Promise<QueryProgress> {
  const execution = current ?? (await services.executions.get(executionId));
  const run = execution && engineRunOf(execution);
  if (!execution || !run || isSettled(execution)) return finished(polls + 1);
  if (execution.state === 'QUERY_STATE_CANCELLED') await services.engine.cancel(run);
  // An engine in this process answers as soon as the run changes, instead of a poll spinning on it.
  await services.engine.waitForChange?.(run, IN_PROCESS_STATUS_WAIT_MS);
  const status = await services.engine.status(run);
  switch (status.state) {
    case 'queued':
      return running(polls + 1);
    case 'running':
      await services.executions.transition(executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_EXECUTING',
        executionStartedAt: new Date().toISOString(),
      });
      return running(polls + 1);
    default:
      await recordOutcome(services, execution, status, handOver);
      return finished(polls + 1);
  }
}

/**
 * Whether the run's outcome is recorded already (a retried CheckQuery must not charge twice):
 * completed and failed runs are recorded by their last check; a cancelled one once its engine
 * time is added.
 */
function isSettled(execution: Execution): boolean {
  if (execution.state === 'QUERY_STATE_COMPLETED' || execution.state === 'QUERY_STATE_FAILED') return true;
  return execution.state === 'QUERY_STATE_CANCELLED' && execution.engineMillis !== undefined;
}

type Outcome = { state: 'succeeded'; result: EngineRunResult } | { state: 'failed'; failure: unknown };

/**
 * Takes the writes a completed pipeline node's run makes once it reads COMPLETED (its slot freed,
 * credits charged, result bytes counted), so the node's end is written alongside them instead of
 * after them. Whoever takes them awaits them before its Task answers: nothing is left unwritten
 * when a Lambda returns.
 */
export type HandOverWrites = (writes: Promise<void>) => void;

/** Records the run's end, charges it and frees the account's slot. */
async function recordOutcome(
  services: Services,
  execution: Execution,
  outcome: Outcome,
  handOver?: HandOverWrites,
): Promise<void> {
  let released: Promise<void> | undefined;
  // Freed once the outcome is recorded (a success frees it while it charges), or after a failure.
  const release = () => (released ??= releaseSlot(services, execution.accountId));
  let handedOver = false;
  const takeOver: HandOverWrites | undefined =
    handOver &&
    ((writes) => {
      handedOver = true;
      handOver(writes);
    });
  try {
    if (outcome.state === 'succeeded')
      await recordSuccess(services, execution, outcome.result, release, takeOver);
    else await recordRunFailure(services, execution, outcome.failure);
  } finally {
    // Handed over, the slot is freed among the writes the caller awaits.
    if (!handedOver) await release();
  }
}

async function recordSuccess(
  services: Services,
  execution: Execution,
  result: EngineRunResult,
  /** Frees the account's slot (once): called as soon as the execution reads COMPLETED. */
  releaseSlotNow: () => Promise<void>,
  handOver?: HandOverWrites,
) {
  const { executionId } = execution;
  // A query's first page is usually asked for at once: the store learns the result's shape from
  // the engine rather than from the file (and reads a small result whole meanwhile). Not for view
  // refreshes and pipeline nodes, whose results are rarely paged then.
  if (clientAwaitsResult(execution)) {
    const shape = { columns: result.columns, rowCount: result.rowCount };
    services.results.warm?.(executionId, shape).catch((error: unknown) => {
      logger.warn('warming a result failed', { executionId, error: error as Error });
    });
  }
  const credits = runCredits(result, execution.tier);
  const endedAtMillis = Date.now();
  const endedAt = new Date(endedAtMillis).toISOString();
  const active = ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'] as const;
  // A refresh publishes the view's new version before its execution reads COMPLETED, so whoever
  // sees the execution completed also sees the new version. (A cancel landing in between
  // cannot take a published version back.) Likewise the query's "latest result" pointer moves
  // first, so GET /v1/query/{id}/results works as soon as the execution reads COMPLETED.
  // Only a run that moves a pointer needs to know it was not cancelled meanwhile (the transition
  // below is conditional anyway): an ad-hoc query skips the read.
  const movesPointer = execution.queryId > 0 || execution.materializedViewName !== undefined;
  const current = movesPointer ? await services.executions.get(executionId) : execution;
  const stillActive = current !== undefined && (active as readonly string[]).includes(current.state);
  const view = stillActive ? execution.materializedViewName : undefined;
  // An engine that reads views as tables gets the version's table before readers can see it.
  if (view) await services.viewVersions?.prepare(view, { executionId, columns: result.columns });
  // The two pointers are independent of each other: moved together.
  await Promise.all([
    stillActive && execution.queryId > 0
      ? services.queries.setLatestCompletedExecution(execution.queryId, executionId)
      : undefined,
    view
      ? services.materializedViews.publish(view, {
          executionId,
          columns: result.columns,
          rowCount: result.rowCount,
          tableSizeBytes: result.resultBytes,
          refreshedAt: endedAt,
        })
      : undefined,
  ]);
  const completed = await services.executions.transition(executionId, active, {
    state: 'QUERY_STATE_COMPLETED',
    // Its engine time before its end (not before now: the pointer writes above took time too),
    // rather than when a status read first saw it running: execution_time_millis is then the
    // engine time the run is charged for.
    executionStartedAt: new Date(endedAtMillis - result.engineMillis).toISOString(),
    executionEndedAt: endedAt,
    result: { columns: result.columns, rowCount: result.rowCount, resultBytes: result.resultBytes },
    engineMillis: result.engineMillis,
    credits,
  });
  if (!completed) {
    // Cancelled as it finished: the cancel wins and the result is dropped (unless a view published it).
    if (!execution.materializedViewName) await services.results.delete(executionId);
    await Promise.all([
      charge(services, execution, credits),
      recordCancelledRun(services, executionId, result.engineMillis, credits),
    ]);
    return;
  }
  const bookkeeping = [
    releaseSlotNow,
    () => charge(services, execution, credits),
    () => services.usage.addStorageBytes(execution.accountId, result.resultBytes),
  ];
  if (clientAwaitsResult(execution)) {
    // Waits for the next turn of the event loop, so the status read the transition woke answers
    // first, then writes one at a time, so the first page, asked for right after, is not held
    // behind all three. The slot goes first: another run of the account may be waiting for it.
    // Measured on the local host: 2–3 ms less from submit to first page (test/bench/README.md).
    await new Promise((resolve) => setImmediate(resolve));
    await eachInTurn(bookkeeping);
    return;
  }
  // A pipeline node or a view refresh writes all three at once, together (a node's end alongside,
  // when they are handed over). After the execution reads COMPLETED: dropping old versions need
  // not delay the refresh.
  const writes = Promise.all(bookkeeping.map((write) => write())).then(async () => {
    if (view && services.viewVersions) await retireViewVersions(services, view);
  });
  if (handOver) handOver(writes);
  else await writes;
}

/** Drops the view's versions no run can still read; a failure only delays it to the next refresh. */
async function retireViewVersions(services: Services, fullName: string): Promise<void> {
  try {
    const view = await services.materializedViews.get(fullName);
    await services.viewVersions?.retire(fullName, view?.currentExecutionId);
  } catch (error) {
    logger.warn('retiring view versions failed', { fullName, error: error as Error });
  }
}

async function recordRunFailure(services: Services, execution: Execution, error: unknown) {
  const failure = error instanceof QueryFailure ? error : undefined;
  if (!failure)
    logger.error('query run crashed', { executionId: execution.executionId, error: error as Error });
  if (failure?.type === 'cancelled') {
    await settleCancelledRun(services, execution, failure);
    return;
  }
  const engineMillis = failure?.engineMillis ?? 0;
  const credits = failedRunCredits(execution, { engineMillis, scannedBytes: failure?.scannedBytes });
  if (credits > 0) await charge(services, execution, credits);
  const written = failure && asWritten(execution, failure);
  const executionError: ExecutionError = failure
    ? {
        type: failure.type,
        message: `${written!.message} [Execution ID: ${execution.executionId}]`,
        ...(written!.position ? { metadata: written!.position } : {}),
      }
    : {
        type: 'internal_error',
        message: `The engine failed unexpectedly. [Execution ID: ${execution.executionId}]`,
      };
  const endedAt = new Date();
  const failed = await services.executions.transition(
    execution.executionId,
    ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'],
    {
      state: 'QUERY_STATE_FAILED',
      // As for a completed run: the engine time before its end, so execution_time_millis is the
      // time it is charged for (a status read may have seen it start late, or not at all).
      ...(engineMillis > 0 ? { executionStartedAt: startedBefore(endedAt, engineMillis, execution) } : {}),
      executionEndedAt: endedAt.toISOString(),
      error: executionError,
      engineMillis,
      credits,
    },
  );
  // Cancelled meanwhile: the cancel stands, with the engine time the run used.
  if (!failed) await recordCancelledRun(services, execution.executionId, engineMillis, credits);
}

/** A run that did not complete pays for the engine time (and scan) it used, if any. */
function failedRunCredits(execution: Execution, used: { engineMillis: number; scannedBytes?: number }) {
  return used.engineMillis > 0 || (used.scannedBytes ?? 0) > 0 ? runCredits(used, execution.tier) : 0;
}

/**
 * Charges a run its engine had stopped when it was cancelled: the engine time it used until the
 * cancel. It cannot have started before it was submitted, so it pays for submit → cancel at most
 * (an engine that took a moment to hear the cancel counted that moment too), and its start is
 * recorded as that much engine time before the cancel.
 */
async function settleCancelledRun(services: Services, execution: Execution, failure: QueryFailure) {
  const cancelled = (await services.executions.get(execution.executionId)) ?? execution;
  const cancelledAt = cancelled.executionEndedAt ?? cancelled.cancelledAt;
  const sinceSubmit = cancelledAt ? Date.parse(cancelledAt) - Date.parse(cancelled.submittedAt) : Infinity;
  const engineMillis = Math.max(0, Math.min(failure.engineMillis, sinceSubmit));
  const credits = failedRunCredits(execution, { engineMillis, scannedBytes: failure.scannedBytes });
  if (credits > 0) await charge(services, execution, credits);
  await recordCancelledRun(services, execution.executionId, engineMillis, credits, cancelled);
}

/**
 * Records the engine time and credits of a cancelled run, and its start as that much engine time
 * before it was cancelled: execution_started_at → execution_ended_at (the cancel) is then the
 * time it is charged for. A status read that saw it start did so late (it polls), and one that
 * did not left no start at all.
 */
async function recordCancelledRun(
  services: Services,
  executionId: string,
  engineMillis: number,
  credits: number,
  /** The execution as just read, cancelled. */
  read?: Execution,
): Promise<void> {
  const cancelled = read ?? (await services.executions.get(executionId));
  const endedAt = cancelled?.executionEndedAt ?? cancelled?.cancelledAt;
  await services.executions.transition(executionId, ['QUERY_STATE_CANCELLED'], {
    ...(cancelled && endedAt && engineMillis > 0
      ? { executionStartedAt: startedBefore(new Date(endedAt), engineMillis, cancelled) }
      : {}),
    engineMillis,
    credits,
  });
}

/** `engineMillis` before `endedAt`, not before the execution was submitted. */
function startedBefore(
  endedAt: Date,
  engineMillis: number,
  execution: Pick<Execution, 'submittedAt'>,
): string {
  const started = Math.max(endedAt.getTime() - engineMillis, Date.parse(execution.submittedAt));
  return new Date(Math.min(started, endedAt.getTime())).toISOString();
}

/**
 * The failure's position in the SQL the user wrote: the SQL that ran has their query views inlined.
 * An error inside one is reported at its call, naming it; one after it moves back by what the
 * inlining added. The local engine writes the position into the message too (Athena's is cut out).
 */
export function asWritten(
  execution: Pick<Execution, 'sql' | 'queryViews'>,
  failure: QueryFailure,
): { message: string; position?: Position } {
  const { position } = failure;
  if (!position || !execution.queryViews?.length) return { message: failure.message, position };
  const written = positionAsWritten(execution.sql, execution.queryViews, position);
  const ran = `(line ${position.line}, column ${position.column})`;
  const at = `line ${written.position.line}, column ${written.position.column}`;
  const where = written.view ? `(in the SQL of ${written.view}, called at ${at})` : `(${at})`;
  const message = failure.message.includes(ran)
    ? failure.message.replace(ran, where)
    : written.view
      ? `${failure.message} ${where}`
      : failure.message;
  return { message, position: written.position };
}

/** The workflow's last resort: a Task crashed or timed out at the orchestrator level. */
export async function recordWorkflowFailure(
  services: Services,
  executionId: string,
  error: string,
  cause: string,
) {
  const before = await services.executions.get(executionId);
  // The AcquireSlot Task timed out: the execution waited too long for a slot, no run exists.
  if (error === 'States.Timeout' && before?.state === 'QUERY_STATE_PENDING' && !before.engineRunId) {
    const failed = await failSlotWait(services, executionId);
    return { state: failed?.state ?? before.state };
  }
  const failed = await services.executions.transition(
    executionId,
    ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'],
    {
      state: 'QUERY_STATE_FAILED',
      executionEndedAt: new Date().toISOString(),
      error: {
        type: error === 'States.Timeout' ? 'timeout' : 'internal_error',
        message: `The execution workflow failed (${error}${cause ? `: ${cause.slice(0, 500)}` : ''}). [Execution ID: ${executionId}]`,
      },
    },
  );
  if (failed && before && engineRunOf(before)) {
    // The run may still be going: stop it, and free the slot it held.
    await services.engine.cancel(engineRunOf(before)!).catch(() => undefined);
    await releaseSlot(services, before.accountId);
  }
  return { state: failed?.state ?? before?.state ?? 'missing' };
}

/** An ad-hoc or saved query's run, whose client reads the result as soon as it ends. */
function clientAwaitsResult(execution: Execution): boolean {
  return !execution.materializedViewName && !execution.pipelineExecutionId;
}

/** Runs the steps one after another, each whatever the earlier did; throws the first failure. */
async function eachInTurn(steps: readonly (() => Promise<unknown>)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

async function charge(services: Services, execution: Execution, credits: number) {
  await services.usage.addCredits(execution.accountId, billingPeriodOf(new Date()), credits);
}
