import type { Account } from '../core/accounts';
import { awaitFinished } from '../core/change-watch';
import { billingPeriodBounds, billingPeriodOf } from '../core/credits';
import type { PerformanceTier } from '../core/engine';
import { ConflictError, NotFoundError, PaymentRequiredError } from '../core/errors';
import { type Execution, engineRunOf, isTerminal } from '../core/executions';
import { newId } from '../core/ids';
import {
  bindParameters,
  effectiveParameterValues,
  type ParameterOverrides,
  type ParameterValues,
} from '../core/parameters';
import type { InlinedView } from '../core/query-views';
import { singleQueryInput, singleQueryWorkflow } from '../core/workflows';
import { logger } from '../http/logger';
import { expandQueryViewsTraced } from '../queries/query-views';
import { assertRunnable, readableQuery } from '../queries/use-cases';
import type { Services } from '../services';
import { offerSlot } from './slots';

export interface SubmittedExecution {
  executionId: string;
  state: Execution['state'];
}

/** Runs a saved query (the caller's, or a public one) with its defaults and any overrides. */
export async function executeSavedQuery(
  services: Services,
  account: Account,
  queryId: number,
  options: { tier: PerformanceTier; parameters?: ParameterOverrides },
): Promise<SubmittedExecution> {
  return submitExecution(services, account, await savedQueryRequest(services, account, queryId, options));
}

/** The execution of a saved query: readable, not archived, parameters bound. */
export async function savedQueryRequest(
  services: Services,
  account: Account,
  queryId: number,
  options: { tier: PerformanceTier; parameters?: ParameterOverrides },
): Promise<ExecutionRequest> {
  const query = await readableQuery(services.queries, account, queryId);
  assertRunnable(query);
  const overrides = options.parameters ?? {};
  const bound = bindParameters(query.querySql, query.parameters, overrides);
  const { sql, views } = await expandQueryViewsTraced(services, account, bound, queryId);
  return {
    queryId,
    sql,
    ...(views.length ? { queryViews: views } : {}),
    tier: options.tier,
    ...(query.parameters.length ? { parameters: effectiveParameterValues(query.parameters, overrides) } : {}),
  };
}

/** Runs ad-hoc SQL (query id 0). */
export async function executeSql(services: Services, account: Account, sql: string, tier: PerformanceTier) {
  const { sql: expanded, views } = await expandQueryViewsTraced(services, account, sql);
  return submitExecution(services, account, {
    queryId: 0,
    sql: expanded,
    ...(views.length ? { queryViews: views } : {}),
    tier,
  });
}

export interface ExecutionRequest {
  queryId: number;
  sql: string;
  queryViews?: InlinedView[];
  tier: PerformanceTier;
  parameters?: ParameterValues;
  pipelineExecutionId?: string;
  materializedViewName?: string;
}

/**
 * Records the execution as PENDING and starts its workflow; returns at once. The credit limit is
 * checked first: past it, nothing is queued and the caller gets 402.
 */
export async function submitExecution(
  services: Services,
  account: Account,
  request: ExecutionRequest,
  now = new Date(),
): Promise<SubmittedExecution> {
  const execution = await createExecution(services, account, request, now);
  try {
    await startExecutionWorkflow(services, execution);
  } catch (error) {
    await failUnstarted(services, execution, error);
    throw error;
  }
  return { executionId: execution.executionId, state: execution.state };
}

/**
 * A workflow that never started must not stay PENDING: slots go to the oldest PENDING execution
 * first, so a stuck record would hold up every later execution of the account.
 */
async function failUnstarted(services: Services, execution: Execution, cause: unknown): Promise<void> {
  const reason = cause instanceof Error ? cause.message : String(cause);
  await services.executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
    state: 'QUERY_STATE_FAILED',
    executionEndedAt: new Date().toISOString(),
    error: {
      type: 'engine_unavailable',
      message: `The execution could not be started (${reason.slice(0, 300)}); this is not a problem with the SQL — retry later. [Execution ID: ${execution.executionId}]`,
    },
  });
}

/** Checks the credit limit and records a PENDING execution (pipelines run it inside their own workflow). */
export async function createExecution(
  services: Services,
  account: Account,
  request: ExecutionRequest,
  now = new Date(),
): Promise<Execution> {
  const execution = await prepareExecution(services, account, request, now);
  await services.executions.create(execution);
  return execution;
}

/**
 * The execution record `createExecution` stores, once the account may run it (the credit limit):
 * a caller that starts work on it while it is stored (a pipeline node takes its slot) builds it
 * first.
 */
export async function prepareExecution(
  services: Services,
  account: Account,
  request: ExecutionRequest,
  now = new Date(),
): Promise<Execution> {
  await assertWithinCreditLimit(services, account, now);
  const { config } = services;
  const execution: Execution = {
    executionId: newId(now.getTime()),
    accountId: account.accountId,
    queryId: request.queryId,
    sql: request.sql,
    ...(request.queryViews?.length ? { queryViews: request.queryViews } : {}),
    ...(request.parameters ? { parameters: request.parameters } : {}),
    tier: request.tier,
    timeoutMs: config.queryTimeoutMs[request.tier],
    state: 'QUERY_STATE_PENDING',
    submittedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + config.resultRetentionDays * 86_400_000).toISOString(),
    ...(request.pipelineExecutionId ? { pipelineExecutionId: request.pipelineExecutionId } : {}),
    ...(request.materializedViewName ? { materializedViewName: request.materializedViewName } : {}),
  };
  return execution;
}

export async function startExecutionWorkflow(services: Services, execution: Execution): Promise<void> {
  const { config } = services;
  await services.orchestrator.start({
    name: execution.executionId,
    definition: singleQueryWorkflow({
      runnerResource: config.runnerResource,
      slotWaitSeconds: config.slotPollSeconds * config.maxSlotPolls,
    }),
    input: singleQueryInput(execution.executionId),
  });
}

export async function assertWithinCreditLimit(services: Services, account: Account, now = new Date()) {
  // One read on every submit: the period's usage and the account's limit together.
  const standing = await services.usage.getCreditStanding(account.accountId, billingPeriodOf(now));
  const limit = standing.creditLimit ?? services.config.defaultCreditLimit;
  const used = standing.creditsUsed;
  if (used >= limit) {
    const period = billingPeriodOf(now);
    // The operator, not the caller, can raise the limit: the hint for them goes to the log.
    logger.warn('credit limit reached', {
      accountId: account.accountId,
      handle: account.handle,
      period,
      creditsUsed: round(used),
      creditLimit: limit,
      operatorHint: `raise it with: npm run admin -- [--aws --table-name <table>] set-credit-limit --account ${account.handle} --credits <n>`,
    });
    throw new PaymentRequiredError(
      `This request would exceed your credit limit for this billing period: ${round(used)} of ${limit} credits used. Runs start again when the next billing period begins (${billingPeriodBounds(period).endDate}, UTC); to run sooner, ask the service's operator to raise your credit limit. Reading statuses and results stays free.`,
    );
  }
}

/** The caller's own execution; anyone else's is 404, as if it did not exist. */
export async function ownExecution(
  services: Services,
  account: Account,
  executionId: string,
): Promise<Execution> {
  const execution = await services.executions.get(executionId);
  if (!execution || execution.accountId !== account.accountId) {
    throw new NotFoundError(`Execution ${executionId} not found.`);
  }
  return execution;
}

/**
 * An execution the caller may read: its own, or a run of a saved query the caller can read (a
 * public one). A public query's latest result is anyone's to read (GET /v1/query/{id}/results, as
 * on Dune) and names its execution, so that execution's status and pages are readable too. Ad-hoc
 * SQL and runs of private queries stay their account's; only the owner may cancel (ownExecution).
 */
export async function readableExecution(
  services: Services,
  account: Account,
  executionId: string,
): Promise<Execution> {
  const execution = await services.executions.get(executionId);
  if (execution && execution.accountId === account.accountId) return execution;
  const query =
    execution && execution.queryId > 0 ? await services.queries.get(execution.queryId) : undefined;
  if (!execution || !query || query.isPrivate) {
    throw new NotFoundError(`Execution ${executionId} not found.`);
  }
  return execution;
}

/**
 * The caller's execution (or a readable one, readableExecution) once it has finished, or as it
 * stands when `waitMillis` have passed or `signal` aborted (awaitFinished); one the caller may
 * not read is not found at once.
 */
export function awaitExecutionEnd(
  services: Services,
  account: Account,
  executionId: string,
  waitMillis: number,
  options: {
    signal?: AbortSignal;
    lookEveryMillis?: number;
    onLook?: (execution: Execution, waitedMillis: number) => Promise<void>;
  } = {},
): Promise<Execution> {
  return awaitFinished(services.executionWatch, executionId, waitMillis, {
    ...options,
    read: () => readableExecution(services, account, executionId),
    stateOf: (execution) => execution.state,
    isFinished: isTerminal,
  });
}

/** 1-based position among the account's queued executions, while pending. */
export async function queuePosition(services: Services, execution: Execution): Promise<number | undefined> {
  if (execution.state !== 'QUERY_STATE_PENDING') return undefined;
  const active = await services.executions.listActive(execution.accountId);
  const ahead = active.filter(
    (e) => e.state === 'QUERY_STATE_PENDING' && e.executionId < execution.executionId,
  );
  return ahead.length + 1;
}

/** Stops a pending or running execution; the runner sees the new state and interrupts the engine. */
export async function cancelExecution(
  services: Services,
  account: Account,
  executionId: string,
  now = new Date(),
) {
  const execution = await ownExecution(services, account, executionId);
  if (isTerminal(execution.state)) {
    throw new ConflictError(
      `Execution ${executionId} already finished (${execution.state}); there is nothing to cancel.`,
    );
  }
  const at = now.toISOString();
  const cancelled = await services.executions.transition(
    executionId,
    ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'],
    {
      state: 'QUERY_STATE_CANCELLED',
      cancelledAt: at,
      executionEndedAt: at,
    },
  );
  if (!cancelled) {
    const current = await services.executions.get(executionId);
    throw new ConflictError(
      `Execution ${executionId} already finished (${current?.state}); there is nothing to cancel.`,
    );
  }
  await stopEngineRun(services, cancelled);
  // A queued execution parked on the slot gate: wake it (it finds itself cancelled and ends).
  if (!cancelled.engineRunId) {
    await offerSlot(services, cancelled.accountId);
  }
  return { success: true };
}

/**
 * Tells the engine to stop a cancelled execution's run at once (Athena: StopQueryExecution). Best
 * effort: the runner's next status check of a cancelled execution stops the run too, so an engine
 * that cannot be reached from here only makes it slower. A run not yet submitted is never started.
 */
export async function stopEngineRun(services: Services, execution: Execution): Promise<void> {
  const run = engineRunOf(execution);
  if (!run) return;
  try {
    await services.engine.cancel(run);
  } catch (error) {
    logger.warn('the engine could not be told to stop a cancelled run', {
      executionId: execution.executionId,
      error: error as Error,
    });
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
