import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SlotGate, SlotWaitRequest } from '../core/slot-gate';
import type { SlotResult } from '../core/workflows';
import type { DynamoSlotWaiterStore } from './dynamo/slot-waiter-store';
import { sendTaskOutput } from './step-functions-gate';

/** Waiters offered a freed slot per call, oldest first (one takes it; the rest were cancelled). */
const WAITERS_PER_WAKE = 10;

/**
 * Slot gate on Step Functions: the AcquireSlot Task (`lambda:invoke.waitForTaskToken`) stores its
 * token, then tries for a slot itself, so a slot freed between the two is not missed; whoever
 * frees a slot offers it to the oldest waiters and completes the Task of the one that takes it
 * with SendTaskSuccess. The scheduled sweep offers slots too, so a lost wake-up costs minutes, not
 * the Task's timeout.
 */
export class StepFunctionsSlotGate implements SlotGate {
  constructor(
    private readonly sfn: SFNClient,
    private readonly waiters: DynamoSlotWaiterStore,
  ) {}

  async awaitSlot(request: SlotWaitRequest): Promise<undefined> {
    await this.waiters.put(request.accountId, {
      executionId: request.executionId,
      taskToken: request.taskToken,
    });
    const result = await request.tryAcquire();
    if (result.status !== 'waiting')
      await this.deliver(request.accountId, request.executionId, request.taskToken, result);
    return undefined;
  }

  async offerSlot(
    accountId: string,
    tryAcquireFor: (executionId: string) => Promise<SlotResult>,
  ): Promise<void> {
    for (const waiter of await this.waiters.oldest(accountId, WAITERS_PER_WAKE)) {
      const result = await tryAcquireFor(waiter.executionId);
      // The oldest waiter could not take it (the slot is taken again, or an older execution
      // not parked yet, e.g. a pipeline node between its first try and its WaitForSlot_n, is
      // ahead): nobody behind it may.
      if (result.status === 'waiting') return;
      await this.deliver(accountId, waiter.executionId, waiter.taskToken, result);
      if (result.status === 'acquired') return;
    }
  }

  private async deliver(accountId: string, executionId: string, token: string, result: SlotResult) {
    await this.waiters.remove(accountId, executionId);
    await sendTaskOutput(this.sfn, token, result);
  }
}
