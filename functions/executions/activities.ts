import { billingPeriodOf, creditsFor } from '../core/credits';
import { QueryFailure } from '../core/engine';
import type { Execution, ExecutionError } from '../core/executions';
import type { RunnerInput, SlotResult } from '../core/workflows';
import { logger } from '../http/logger';
import { readableRelations } from '../matviews/relations';
import { isPipelineAction, runPipelineStep } from '../pipelines/runner';
import { refreshViewWithUpstream } from '../pipelines/use-cases';
import type { Services } from '../services';
import { startExecutionWorkflow } from './use-cases';

/**
 * The node runner: what each Task state of a generated workflow does. The runner Lambda calls it
 * in AWS; the local host binds it to the Task states by name. Every state change is a single
 * conditional write, so a cancel that lands mid-run is never overwritten.
 */
export function createNodeRunner(services: Services) {
  return async (input: RunnerInput | Record<string, unknown>): Promise<unknown> => {
    if (isPipelineAction(input)) return runPipelineStep(services, input);
    if ((input as { action?: string }).action === 'scheduled_refresh') {
      // An EventBridge schedule fired: refresh the view through a pipeline (upstream views first).
      const view = await services.materializedViews.get(
        String((input as { materialized_view?: string }).materialized_view),
      );
      return view ? refreshViewWithUpstream(services, view) : { skipped: 'view no longer exists' };
    }
    const { action, execution_id: executionId } = input as RunnerInput;
    switch (action) {
      case 'acquire_slot':
        return acquireSlot(services, executionId, Number((input as RunnerInput).attempt ?? 0));
      case 'run_query':
        return runQuery(services, executionId);
      case 'record_failure':
        return recordFailure(
          services,
          executionId,
          String(input.error ?? 'Error'),
          String(input.cause ?? ''),
        );
      default:
        throw new Error(`Unknown runner action "${String(action)}".`);
    }
  };
}

/** Takes one of the account's execution slots, oldest queued execution first. */
export async function acquireSlot(
  services: Services,
  executionId: string,
  attempt: number,
): Promise<SlotResult> {
  const execution = await services.executions.get(executionId);
  const attempts = attempt + 1;
  if (execution?.state !== 'QUERY_STATE_PENDING') return { status: 'finished', attempts };
  if (attempt >= services.config.maxSlotPolls) {
    await services.executions.transition(executionId, ['QUERY_STATE_PENDING'], {
      state: 'QUERY_STATE_FAILED',
      executionEndedAt: new Date().toISOString(),
      error: {
        type: 'resource_exhausted',
        message: `Waited too long for an execution slot (limit ${services.config.maxConcurrentExecutions} running at once per account). Try again when fewer queries run.`,
      },
    });
    return { status: 'finished', attempts };
  }
  const queued = (await services.executions.listActive(execution.accountId)).filter(
    (e) => e.state === 'QUERY_STATE_PENDING',
  );
  if (queued[0] && queued[0].executionId !== executionId) return { status: 'waiting', attempts };
  const acquired = await services.limiter.tryAcquire(
    execution.accountId,
    services.config.maxConcurrentExecutions,
  );
  return { status: acquired ? 'acquired' : 'waiting', attempts };
}

export async function runQuery(services: Services, executionId: string): Promise<{ state: string }> {
  const queued = await services.executions.get(executionId);
  if (!queued) return { state: 'missing' };
  const started = await services.executions.transition(executionId, ['QUERY_STATE_PENDING'], {
    state: 'QUERY_STATE_EXECUTING',
    executionStartedAt: new Date().toISOString(),
  });
  if (!started) {
    // Cancelled while it waited for its slot: give the slot back.
    await services.limiter.release(queued.accountId);
    return { state: (await services.executions.get(executionId))?.state ?? 'missing' };
  }
  const controller = new AbortController();
  const watcher = setInterval(() => {
    services.executions
      .get(executionId)
      .then((current) => {
        if (current?.state === 'QUERY_STATE_CANCELLED') controller.abort();
      })
      .catch(() => undefined);
  }, services.config.cancelPollMs);
  try {
    const result = await services.engine.run({
      executionId,
      accountId: started.accountId,
      sql: started.sql,
      tier: started.tier,
      timeoutMs: started.timeoutMs,
      signal: controller.signal,
      relations: await readableRelations(services.materializedViews, started.accountId),
      // The storage quota is enforced while the result is written, not after it was stored.
      storageBytesLeft:
        services.config.storageBytesAllowed - (await services.usage.getStorageBytes(started.accountId)),
      storageBytesQuota: services.config.storageBytesAllowed,
    });
    const credits = creditsFor(result.engineMillis, started.tier);
    const endedAt = new Date().toISOString();
    // A refresh publishes the view's new version before its execution reads COMPLETED, so whoever
    // sees the execution completed also sees the new version. (A cancel landing in between
    // cannot take a published version back.)
    const current = await services.executions.get(executionId);
    // Likewise the query's "latest result" pointer moves first, so GET /v1/query/{id}/results
    // works as soon as the execution reads COMPLETED (a cancel winning the race is skipped there).
    if (current?.state === 'QUERY_STATE_EXECUTING' && started.queryId > 0) {
      await services.queries.setLatestCompletedExecution(started.queryId, executionId);
    }
    if (current?.state === 'QUERY_STATE_EXECUTING' && started.materializedViewName) {
      await services.materializedViews.publish(started.materializedViewName, {
        executionId,
        columns: result.columns,
        rowCount: result.rowCount,
        tableSizeBytes: result.resultBytes,
        refreshedAt: endedAt,
      });
    }
    const completed = await services.executions.transition(executionId, ['QUERY_STATE_EXECUTING'], {
      state: 'QUERY_STATE_COMPLETED',
      executionEndedAt: endedAt,
      result: { columns: result.columns, rowCount: result.rowCount, resultBytes: result.resultBytes },
      engineMillis: result.engineMillis,
      credits,
    });
    await charge(services, started, credits);
    if (!completed) {
      // Cancelled as it finished: the cancel wins and the result is dropped (unless a view published it).
      if (!started.materializedViewName) await services.results.delete(executionId);
      await services.executions.transition(executionId, ['QUERY_STATE_CANCELLED'], {
        engineMillis: result.engineMillis,
        credits,
      });
      return { state: 'QUERY_STATE_CANCELLED' };
    }
    await services.usage.addStorageBytes(started.accountId, result.resultBytes);
    return { state: completed.state };
  } catch (error) {
    return await recordRunFailure(services, started, error);
  } finally {
    clearInterval(watcher);
    await services.limiter.release(started.accountId);
  }
}

async function recordRunFailure(
  services: Services,
  execution: Execution,
  error: unknown,
): Promise<{ state: string }> {
  const failure = error instanceof QueryFailure ? error : undefined;
  if (!failure)
    logger.error('query run crashed', { executionId: execution.executionId, error: error as Error });
  const engineMillis = failure?.engineMillis ?? 0;
  const credits = engineMillis > 0 ? creditsFor(engineMillis, execution.tier) : 0;
  if (credits > 0) await charge(services, execution, credits);
  if (failure?.type === 'cancelled') {
    await services.executions.transition(execution.executionId, ['QUERY_STATE_CANCELLED'], {
      engineMillis,
      credits,
    });
    return { state: 'QUERY_STATE_CANCELLED' };
  }
  const executionError: ExecutionError = failure
    ? {
        type: failure.type,
        message: `${failure.message} [Execution ID: ${execution.executionId}]`,
        ...(failure.position ? { metadata: failure.position } : {}),
      }
    : {
        type: 'internal_error',
        message: `The engine failed unexpectedly. [Execution ID: ${execution.executionId}]`,
      };
  const failed = await services.executions.transition(execution.executionId, ['QUERY_STATE_EXECUTING'], {
    state: 'QUERY_STATE_FAILED',
    executionEndedAt: new Date().toISOString(),
    error: executionError,
    engineMillis,
    credits,
  });
  return { state: failed?.state ?? 'QUERY_STATE_CANCELLED' };
}

/** The workflow's last resort: a Task crashed or timed out at the orchestrator level. */
async function recordFailure(services: Services, executionId: string, error: string, cause: string) {
  const before = await services.executions.get(executionId);
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
  if (failed && before?.state === 'QUERY_STATE_EXECUTING') await services.limiter.release(before.accountId);
  return { state: failed?.state ?? before?.state ?? 'missing' };
}

async function charge(services: Services, execution: Execution, credits: number) {
  await services.usage.addCredits(execution.accountId, billingPeriodOf(new Date()), credits);
}

/**
 * Start-up recovery: nothing can still be running after a restart, so executing runs end FAILED
 * with the reason, queued runs start again, and slot counters restart from zero.
 */
export async function recoverExecutions(services: Services): Promise<{ failed: number; resumed: number }> {
  for (const account of await services.accounts.listAccounts())
    await services.limiter.reset(account.accountId);
  let failed = 0;
  let resumed = 0;
  for (const execution of await services.executions.listActive()) {
    if (execution.state === 'QUERY_STATE_EXECUTING') {
      const done = await services.executions.transition(execution.executionId, ['QUERY_STATE_EXECUTING'], {
        state: 'QUERY_STATE_FAILED',
        executionEndedAt: new Date().toISOString(),
        error: {
          type: 'internal_error',
          message: `The service restarted while this execution was running; run it again. [Execution ID: ${execution.executionId}]`,
        },
      });
      if (done) failed++;
    } else if (execution.state === 'QUERY_STATE_PENDING') {
      await startExecutionWorkflow(services, execution);
      resumed++;
    }
  }
  return { failed, resumed };
}
