import type { Execution } from '../core/executions';
import type { SlotResult } from '../core/workflows';
import type { Services } from '../services';

/**
 * Takes one of the account's execution slots, oldest queued execution first. Executions already
 * submitted to the engine hold a slot, even while the engine still queues them (PENDING). A
 * polling caller (a pipeline node) passes its `attempt`: past `maxSlotPolls` it gives up.
 */
export async function acquireSlot(
  services: Services,
  executionId: string,
  attempt: number,
  /** The execution as the caller just read it (saves a read), or undefined to read it here. */
  current?: Execution,
): Promise<SlotResult> {
  const execution = current ?? (await services.executions.get(executionId));
  const attempts = attempt + 1;
  if (execution?.state !== 'QUERY_STATE_PENDING' || execution.engineRunId)
    return { status: 'finished', attempts };
  if (attempt >= services.config.maxSlotPolls) {
    await failSlotWait(services, executionId);
    return { status: 'finished', attempts };
  }
  if (await olderOneQueued(services, execution)) return { status: 'waiting', attempts };
  const acquired = await services.limiter.tryAcquire(
    execution.accountId,
    services.config.maxConcurrentExecutions,
  );
  return { status: acquired ? 'acquired' : 'waiting', attempts };
}

const queued = (e: Execution) => e.state === 'QUERY_STATE_PENDING' && !e.engineRunId;

/**
 * Whether an older execution of the account still waits for a slot (oldest first). The active
 * index is eventually consistent in DynamoDB: an execution it still lists as queued may have
 * started or ended, which would leave a freed slot unused (the slot gate offers it once). So a
 * candidate is confirmed with a consistent read before it counts.
 */
async function olderOneQueued(services: Services, execution: Execution): Promise<boolean> {
  const older = (await services.executions.listActive(execution.accountId)).filter(
    (e) => queued(e) && e.executionId < execution.executionId,
  );
  for (const candidate of older) {
    const current = await services.executions.get(candidate.executionId);
    if (current && queued(current)) return true;
  }
  return false;
}

/** An execution that waited for a slot past its limit ends FAILED, saying why. */
export async function failSlotWait(services: Services, executionId: string) {
  return services.executions.transition(executionId, ['QUERY_STATE_PENDING'], {
    state: 'QUERY_STATE_FAILED',
    executionEndedAt: new Date().toISOString(),
    error: {
      type: 'resource_exhausted',
      message: `Waited too long for an execution slot (limit ${services.config.maxConcurrentExecutions} running at once per account). Try again when fewer queries run.`,
    },
  });
}

/** Gives a slot back and offers it to the account's oldest waiting execution (the slot gate). */
export async function releaseSlot(services: Services, accountId: string): Promise<void> {
  await services.limiter.release(accountId);
  await offerSlot(services, accountId);
}

/**
 * Lets the account's oldest waiting execution try for a slot now (the slot gate): after a slot
 * was freed, a waiter cancelled, or the head of the queue was submitted.
 */
export function offerSlot(services: Services, accountId: string): Promise<void> {
  return services.slotGate.offerSlot(accountId, (executionId) => acquireSlot(services, executionId, 0));
}
