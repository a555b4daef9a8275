import type { SlotGate, SlotWaitRequest } from '../core/slot-gate';
import { WakeSignals } from '../core/wake-signals';
import type { SlotResult } from '../core/workflows';

/**
 * Local slot gate: the AcquireSlot Task's handler waits in process, trying again whenever one of
 * its account's slots frees (and at least every `recheckMillis`, in case a release happened in a
 * way that did not say so).
 */
export class LocalSlotGate implements SlotGate {
  private readonly signals = new WakeSignals();
  private closed = false;

  constructor(private readonly recheckMillis = 250) {}

  /** Ends every wait: at shutdown nothing frees slots any more. */
  close(): void {
    this.closed = true;
    this.signals.wakeAll();
  }

  async awaitSlot(request: SlotWaitRequest): Promise<SlotResult> {
    for (;;) {
      if (this.closed)
        throw new Error('The local host is shutting down; the execution resumes at the next start.');
      const result = await request.tryAcquire();
      if (result.status !== 'waiting') return result;
      await this.signals.next(request.accountId, this.recheckMillis);
    }
  }

  async offerSlot(accountId: string): Promise<void> {
    this.signals.wake(accountId);
  }
}
