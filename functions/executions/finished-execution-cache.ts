import { REREAD_EVERY } from '../core/change-watch';
import {
  type Execution,
  type ExecutionChanges,
  type ExecutionState,
  type ExecutionStore,
  type ExecutionWatch,
  isTerminal,
} from '../core/executions';
import { copyPlainData } from '../core/plain-data';
import { WakeSignals } from '../core/wake-signals';

/**
 * States an execution never leaves and in which it never changes: every transition is conditional
 * on a `from` state, and no caller lists these. CANCELLED is left out on purpose: a cancelled run
 * still gets the engine time it was charged (and its end time) written afterwards.
 */
const FINAL_STATES: ReadonlySet<ExecutionState> = new Set(['QUERY_STATE_COMPLETED', 'QUERY_STATE_FAILED']);

/**
 * An ExecutionStore that serves completed and failed executions from memory (and, in a process
 * that is the only writer, every execution it wrote): status and result
 * reads of a finished run (most reads) cost no DynamoDB round trip. Correct in every process, on
 * both hosts, because such an execution never changes again; anything still pending, executing or
 * cancelled is always read from the store. Bounded: the least recently used entries go first.
 * Callers get copies, so nothing they do to an answer reaches the cache.
 */
export class FinishedExecutionCache implements ExecutionStore, ExecutionWatch {
  private readonly entries = new Map<string, Execution>();
  /** Sole writer only: readers waiting for an execution to change, woken by this process's writes. */
  private readonly changes = new WakeSignals();
  /**
   * Sole writer only: each account's active executions once read from the store, kept exact by
   * this process's own writes (slot order and queue positions then cost no index query).
   */
  private readonly active = new Map<string, Map<string, Execution>>();
  /** Accounts whose active list is being read: writes meanwhile are applied on top of it. */
  private readonly loading = new Map<string, Map<string, Execution>>();
  private readonly loads = new Map<string, Promise<Map<string, Execution>>>();
  /**
   * Sole writer only: transitions on their way to the store. A read of that execution meanwhile
   * waits for it and answers the state it writes: the read overlaps the write, so either answer
   * would be correct, and a status poll that arrives while a run's end is being recorded sees the
   * end instead of the state it is leaving (a poll later).
   */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: ExecutionStore,
    readonly capacity = 10_000,
    /**
     * This process writes every execution record (the local host: one process, one store), so
     * the records it wrote are exact in every state, not only the final ones: the workflow's
     * reads of an execution it just created or moved cost no round trip. Never in AWS, where
     * each Lambda instance is one writer among many.
     */
    private readonly soleWriter = false,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async create(execution: Execution): Promise<void> {
    await this.store.create(execution);
    if (this.soleWriter) this.wrote(execution);
  }

  async get(executionId: string): Promise<Execution | undefined> {
    const writing = this.writing.get(executionId);
    if (writing) await writing.catch(() => undefined);
    const cached = this.entries.get(executionId);
    if (cached) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(executionId);
      this.entries.set(executionId, cached);
      return copyPlainData(cached);
    }
    const execution = await this.store.get(executionId);
    if (execution) this.remember(execution);
    return execution;
  }

  async transition(
    executionId: string,
    from: readonly ExecutionState[],
    changes: ExecutionChanges,
  ): Promise<Execution | undefined> {
    if (!this.soleWriter) {
      const updated = await this.store.transition(executionId, from, changes);
      if (updated) this.remember(updated);
      return updated;
    }
    const written = this.store.transition(executionId, from, changes).then((updated) => {
      if (updated) this.wrote(updated);
      return updated;
    });
    // Reads wait for the latest transition of the execution (one after another in this process).
    this.writing.set(executionId, written);
    try {
      return await written;
    } finally {
      if (this.writing.get(executionId) === written) this.writing.delete(executionId);
    }
  }

  async changed(executionId: string, seen: ExecutionState, millis: number): Promise<void> {
    if (!this.soleWriter) return REREAD_EVERY.changed(executionId, seen, millis);
    return this.changes.next(
      executionId,
      millis,
      () => this.writing.has(executionId) || this.entries.get(executionId)?.state !== seen,
    );
  }

  async listActive(accountId?: string): Promise<Execution[]> {
    if (!this.soleWriter || accountId === undefined) return this.store.listActive(accountId);
    const active = this.active.get(accountId) ?? (await this.loadActive(accountId));
    return [...active.values()]
      .sort((a, b) => a.executionId.localeCompare(b.executionId))
      .map((execution) => copyPlainData(execution));
  }

  /** Reads the account's active executions once; concurrent callers share the read. */
  private loadActive(accountId: string): Promise<Map<string, Execution>> {
    let load = this.loads.get(accountId);
    if (!load) {
      const writes = new Map<string, Execution>();
      this.loading.set(accountId, writes);
      load = this.store
        .listActive(accountId)
        .then((listed) => {
          // A write that landed while the list was read is at least as new as what it saw.
          const active = new Map(listed.map((e) => [e.executionId, e]));
          for (const [id, execution] of writes) {
            if (isTerminal(execution.state)) active.delete(id);
            else active.set(id, execution);
          }
          this.active.set(accountId, active);
          return active;
        })
        .finally(() => {
          this.loading.delete(accountId);
          this.loads.delete(accountId);
        });
      this.loads.set(accountId, load);
    }
    return load;
  }

  /** Sole writer: a record as this process just stored it. */
  private wrote(execution: Execution): void {
    this.remember(execution);
    this.changes.wake(execution.executionId);
    this.loading.get(execution.accountId)?.set(execution.executionId, copyPlainData(execution));
    const active = this.active.get(execution.accountId);
    if (!active) return;
    if (isTerminal(execution.state)) active.delete(execution.executionId);
    else active.set(execution.executionId, copyPlainData(execution));
  }

  private remember(execution: Execution): void {
    if (!this.soleWriter && !FINAL_STATES.has(execution.state)) return;
    this.entries.set(execution.executionId, copyPlainData(execution));
    if (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value!);
    }
  }
}
