import type { SlotGate, SlotWaitRequest } from '../core/slot-gate';
import type { SlotResult } from '../core/workflows';

/**
 * Local slot gate: the AcquireSlot Task's handler waits in process, trying again whenever one of
 * its account's slots frees (and at least every `recheckMillis`, in case a release happened in a
 * way that did not say so).
 */
export class LocalSlotGate implements SlotGate {
  private readonly listeners = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(private readonly recheckMillis = 250) {}

  /** Ends every wait: at shutdown nothing frees slots any more. */
  close(): void {
    this.closed = true;
    for (const wake of [...this.listeners.values()].flatMap((set) => [...set])) wake();
  }

  async awaitSlot(request: SlotWaitRequest): Promise<SlotResult> {
    for (;;) {
      if (this.closed)
        throw new Error('The local host is shutting down; the execution resumes at the next start.');
      const result = await request.tryAcquire();
      if (result.status !== 'waiting') return result;
      await this.nextWake(request.accountId);
    }
  }

  async slotFreed(accountId: string): Promise<void> {
    for (const wake of [...(this.listeners.get(accountId) ?? [])]) wake();
  }

  private nextWake(accountId: string): Promise<void> {
    return new Promise((resolve) => {
      const listeners = this.listeners.get(accountId) ?? new Set();
      this.listeners.set(accountId, listeners);
      const wake = () => {
        clearTimeout(timer);
        listeners.delete(wake);
        if (listeners.size === 0) this.listeners.delete(accountId);
        resolve();
      };
      const timer = setTimeout(wake, this.recheckMillis);
      listeners.add(wake);
    });
  }
}
