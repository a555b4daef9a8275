import type { Execution } from '../core/executions';
import { startExecutionWorkflow } from '../executions/use-cases';
import { recoverPipelines } from '../pipelines/use-cases';
import type { Services } from '../services';

/** Whether the engine was running the execution's query, or holding it in its own queue. */
export function heldByEngine(execution: Execution): boolean {
  return (
    execution.state === 'QUERY_STATE_EXECUTING' ||
    (execution.state === 'QUERY_STATE_PENDING' && execution.engineRunId !== undefined)
  );
}

/**
 * Start-up recovery of the local host: nothing can still run after a restart, so executions the
 * engine held end FAILED with the reason, those still waiting for a slot start again, slot
 * counters restart from zero, and interrupted pipelines end failed (a retry reruns their nodes).
 */
export async function recoverAfterRestart(
  services: Services,
): Promise<{ failed: number; resumed: number; pipelines: number }> {
  for (const account of await services.accounts.listAccounts())
    await services.limiter.reset(account.accountId);
  let failed = 0;
  let resumed = 0;
  for (const execution of await services.executions.listActive()) {
    if (heldByEngine(execution)) {
      if (await failInterrupted(services, execution, 'The service restarted')) failed++;
    } else if (execution.state === 'QUERY_STATE_PENDING') {
      await startExecutionWorkflow(services, execution);
      resumed++;
    }
  }
  return { failed, resumed, pipelines: await recoverPipelines(services) };
}

/** Ends an execution the engine held as FAILED because the host stopped (`reason` says how). */
export async function failInterrupted(services: Services, execution: Execution, reason: string) {
  return services.executions.transition(
    execution.executionId,
    ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'],
    {
      state: 'QUERY_STATE_FAILED',
      executionEndedAt: new Date().toISOString(),
      error: {
        type: 'internal_error',
        message: `${reason} while this execution was running; run it again. [Execution ID: ${execution.executionId}]`,
      },
    },
  );
}
