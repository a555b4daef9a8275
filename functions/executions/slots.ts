import type { Execution } from '../core/executions';
import type { SlotResult } from '../core/workflows';
import type { Services } from '../services';

/**
 * Takes one of the account's execution slots, oldest queued execution first. Executions already
 * submitted to the engine hold a slot, even while the engine still queues them (PENDING). A
 * polling caller (a pipeline node) passes its `attempt`: past `maxSlotPolls` it gives up.
 *
 * Oldest first does not mean one at a time: the slots the older queued executions need are left
 * free for them, and a younger one takes a slot only if one is left over. So executions that
 * start together (a pipeline's parallel nodes, a dashboard's queries) all start at once when the
 * account has room, instead of each waiting for the one before it to reach the engine. Nodes of
 * the same pipeline run keep no slot for each other: they are one piece of work, whichever starts
 * first.
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
  const limit = services.config.maxConcurrentExecutions;
  const reserved = await olderQueuedCount(services, execution, limit);
  if (reserved >= limit) return { status: 'waiting', attempts };
  const acquired = await services.limiter.tryAcquire(execution.accountId, limit - reserved);
  return { status: acquired ? 'acquired' : 'waiting', attempts };
}

const queued = (e: Execution) => e.state === 'QUERY_STATE_PENDING' && !e.engineRunId;

/**
 * How many older executions of the account still wait for a slot (counted up to `atMost`), other
 * than nodes of the same pipeline run. The active index is eventually consistent in DynamoDB: an
 * execution it still lists as queued may have started or ended, which would hold back a slot
 * nobody needs. So each candidate is confirmed with a consistent read before it counts.
 *
 * An older execution that took its slot but is not submitted yet counts here and in `running`:
 * that only makes a younger one wait a moment longer. Between a pipeline's nodes started
 * together it made the last one wait for the others to reach the engine, hence the exception.
 */
async function olderQueuedCount(services: Services, execution: Execution, atMost: number): Promise<number> {
  const sameRun = (e: Execution) =>
    execution.pipelineExecutionId !== undefined && e.pipelineExecutionId === execution.pipelineExecutionId;
  const candidates = (await services.executions.listActive(execution.accountId)).filter(
    (e) => queued(e) && e.executionId < execution.executionId && !sameRun(e),
  );
  let count = 0;
  for (let i = 0; i < candidates.length && count < atMost; i += atMost) {
    const confirmed = await Promise.all(
      candidates.slice(i, i + atMost).map((candidate) => services.executions.get(candidate.executionId)),
    );
    count += confirmed.filter((current) => current !== undefined && queued(current)).length;
  }
  return Math.min(count, atMost);
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
