import type { SlotResult } from './workflows';

export interface SlotWaitRequest {
  accountId: string;
  executionId: string;
  /** The AcquireSlot Task's token (`'local'` in local runs). */
  taskToken: string;
  /** Tries to take one of the account's slots now, oldest queued execution first. */
  tryAcquire(): Promise<SlotResult>;
}

/**
 * How a queued execution waits for one of its account's execution slots. Locally the AcquireSlot
 * Task's handler itself waits, woken when a slot frees; on Step Functions the Task
 * (`lambda:invoke.waitForTaskToken`) parks on its token and whoever frees a slot hands it on with
 * SendTaskSuccess. Either way there is no polling loop in the workflow: a queued execution costs a
 * few state transitions however long it waits.
 */
export interface SlotGate {
  /** The result now (local), or undefined when it will be delivered to the token later (AWS). */
  awaitSlot(request: SlotWaitRequest): Promise<SlotResult | undefined>;
  /**
   * The account's next waiter may be able to take a slot now: one was freed, a waiter was
   * cancelled, or the oldest queued execution took its slot and was submitted (waiters behind it
   * wait for their turn, not only for a free slot). The oldest waiters are offered a slot, through
   * `tryAcquireFor`, until one takes it.
   */
  offerSlot(accountId: string, tryAcquireFor: (executionId: string) => Promise<SlotResult>): Promise<void>;
}
