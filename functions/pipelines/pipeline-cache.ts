import type { ChangeWatch } from '../core/change-watch';
import type {
  NodeChanges,
  NodeState,
  PipelineChanges,
  PipelineExecution,
  PipelineNodeRun,
  PipelineState,
  PipelineStore,
} from '../core/pipelines';
import { copyPlainData } from '../core/plain-data';
import { WakeSignals } from '../core/wake-signals';

interface Entry {
  execution: PipelineExecution;
  nodes: PipelineNodeRun[];
}

type Loaded = { execution: PipelineExecution; nodes: PipelineNodeRun[] } | undefined;

/**
 * A PipelineStore for a process that writes every pipeline record itself (the local host): a
 * pipeline read once is served from memory afterwards, kept exact by this process's own
 * conditional writes (each returns the record as stored). The dependency gate, the node steps and
 * status polls read a running pipeline many times per node; each read was a DynamoDB query.
 * A write that lands while the first read is in flight is applied on top of it. Never in AWS,
 * where each Lambda instance is one writer among many. Bounded: least recently used out first.
 */
export class SoleWriterPipelineCache implements PipelineStore, ChangeWatch<PipelineState> {
  private readonly entries = new Map<string, Entry>();
  /** Readers waiting for a run's state to change (a held status read), woken by its transitions. */
  private readonly changes = new WakeSignals();
  private readonly loading = new Map<
    string,
    { execution?: PipelineExecution; nodes: Map<number, PipelineNodeRun> }
  >();

  /** Each run's transition on its way to the store: the next one waits for it. */
  private readonly transitions = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: PipelineStore,
    readonly capacity = 200,
  ) {}

  /**
   * Remembers the run as written: its workflow reads it at once, from every root node's dependency
   * gate together (each read was a query of all its items, ~10 ms of the event loop per pipeline).
   */
  async create(execution: PipelineExecution, nodes: readonly PipelineNodeRun[]): Promise<void> {
    await this.store.create(execution, nodes);
    this.remember(execution.pipelineExecutionId, {
      execution: asStored(execution),
      nodes: [...nodes].sort((a, b) => a.nodeId - b.nodeId).map(asStored),
    });
  }

  async get(pipelineExecutionId: string): Promise<Loaded> {
    const cached = this.entries.get(pipelineExecutionId);
    if (cached) {
      this.entries.delete(pipelineExecutionId);
      this.entries.set(pipelineExecutionId, cached);
      return copyPlainData(cached);
    }
    const writes = { nodes: new Map<number, PipelineNodeRun>() } as {
      execution?: PipelineExecution;
      nodes: Map<number, PipelineNodeRun>;
    };
    const concurrent = this.loading.has(pipelineExecutionId);
    if (!concurrent) this.loading.set(pipelineExecutionId, writes);
    let loaded: Loaded;
    try {
      loaded = await this.store.get(pipelineExecutionId);
    } finally {
      if (!concurrent) this.loading.delete(pipelineExecutionId);
    }
    // Another read started first and owns the bookkeeping: answer from the store as read.
    if (!loaded || concurrent) return loaded;
    const entry = this.entries.get(pipelineExecutionId) ?? loaded;
    if (writes.execution) entry.execution = writes.execution;
    entry.nodes = entry.nodes.map((node) => writes.nodes.get(node.nodeId) ?? node);
    this.remember(pipelineExecutionId, entry);
    return copyPlainData(entry);
  }

  async getNode(pipelineExecutionId: string, nodeId: number): Promise<PipelineNodeRun | undefined> {
    const node = this.entries.get(pipelineExecutionId)?.nodes.find((n) => n.nodeId === nodeId);
    return node ? copyPlainData(node) : this.store.getNode(pipelineExecutionId, nodeId);
  }

  /**
   * One transition of a run at a time, and none its stored state refuses: this process wrote that
   * state, so a transition from another one could only fail at the store. Every root node of a run
   * moves it from pending to executing as it starts; one write lands, the others were conditional
   * writes that failed, on the one thread DynamoDB's stand-in answers on, as the nodes started.
   */
  async transition(
    pipelineExecutionId: string,
    from: readonly PipelineState[],
    changes: PipelineChanges,
  ): Promise<PipelineExecution | undefined> {
    const previous = this.transitions.get(pipelineExecutionId);
    // The attempt ends once the cache holds what it wrote, so the next one reads it.
    const attempt = (async () => {
      await previous?.catch(() => undefined);
      const stored = this.entries.get(pipelineExecutionId)?.execution.state;
      if (stored !== undefined && !from.includes(stored)) return undefined;
      const updated = await this.store.transition(pipelineExecutionId, from, changes);
      if (updated) {
        const entry = this.entries.get(pipelineExecutionId);
        if (entry) entry.execution = copyPlainData(updated);
        const writes = this.loading.get(pipelineExecutionId);
        if (writes) writes.execution = copyPlainData(updated);
        this.changes.wake(pipelineExecutionId);
      }
      return updated;
    })();
    this.transitions.set(pipelineExecutionId, attempt);
    try {
      return await attempt;
    } finally {
      if (this.transitions.get(pipelineExecutionId) === attempt) this.transitions.delete(pipelineExecutionId);
    }
  }

  changed(pipelineExecutionId: string, seen: PipelineState, millis: number): Promise<void> {
    return this.changes.next(
      pipelineExecutionId,
      millis,
      () => this.entries.get(pipelineExecutionId)?.execution.state !== seen,
    );
  }

  async transitionNode(
    pipelineExecutionId: string,
    nodeId: number,
    from: readonly NodeState[],
    changes: NodeChanges,
  ): Promise<PipelineNodeRun | undefined> {
    const updated = await this.store.transitionNode(pipelineExecutionId, nodeId, from, changes);
    if (updated) {
      const entry = this.entries.get(pipelineExecutionId);
      if (entry)
        entry.nodes = entry.nodes.map((node) => (node.nodeId === nodeId ? copyPlainData(updated) : node));
      this.loading.get(pipelineExecutionId)?.nodes.set(nodeId, copyPlainData(updated));
    }
    return updated;
  }

  listActive(): Promise<PipelineExecution[]> {
    return this.store.listActive();
  }

  private remember(pipelineExecutionId: string, entry: Entry): void {
    this.entries.set(pipelineExecutionId, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** A record as the store gives it back: a copy, without the properties left undefined. */
function asStored<T>(record: T): T {
  return JSON.parse(JSON.stringify(record)) as T;
}
