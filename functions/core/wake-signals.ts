/**
 * In-process wake-ups: a waiter waits on a key (a pipeline, an account, an execution) until
 * something that may change its answer happens there, or until a re-check is due anyway.
 */
export class WakeSignals {
  private readonly listeners = new Map<string, Set<() => void>>();

  /**
   * Resolves at the next `wake(key)` or after `millis`, whichever comes first. `changedAlready`
   * is asked once the waiter is listening: a change that landed between the caller's last look
   * and this call would otherwise be missed until `millis` passed.
   */
  next(key: string, millis: number, changedAlready?: () => boolean): Promise<void> {
    const listening = this.listen(key, millis);
    if (changedAlready?.()) listening.stop();
    return listening.woken;
  }

  /**
   * Starts listening on `key` now: `woken` resolves at the next `wake(key)`, after `millis`, or
   * at `stop()` (which also stops listening). A waiter that listens before it looks cannot miss a
   * wake that lands while it looks.
   */
  listen(key: string, millis: number): { woken: Promise<void>; stop: () => void } {
    const listeners = this.listeners.get(key) ?? new Set();
    this.listeners.set(key, listeners);
    let resolve!: () => void;
    const woken = new Promise<void>((done) => {
      resolve = done;
    });
    const wake = () => {
      clearTimeout(timer);
      listeners.delete(wake);
      if (listeners.size === 0 && this.listeners.get(key) === listeners) this.listeners.delete(key);
      resolve();
    };
    const timer = setTimeout(wake, millis);
    listeners.add(wake);
    return { woken, stop: wake };
  }

  wake(key: string): void {
    for (const wake of [...(this.listeners.get(key) ?? [])]) wake();
  }

  wakeAll(): void {
    for (const key of [...this.listeners.keys()]) this.wake(key);
  }
}
