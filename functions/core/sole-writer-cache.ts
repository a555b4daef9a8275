import { copyPlainData } from './plain-data';

/**
 * Records read through from a store by the process that is the store's only writer (the local
 * host), kept in memory until that process writes them. Every write goes through `writing`, which
 * drops the record before and after the write, or `updating`, which keeps it with the write's
 * known change; a read that overlapped a write of its record (or of all records) is answered but
 * not kept, so a value read just before a write landed is never served afterwards. Writes of
 * other records do not matter: in a busy process (a pipeline writes all the time) any-write
 * overlap left most reads uncached. Never in AWS, where each Lambda instance is one writer among
 * many. Bounded: least recently used out first. Callers get copies, so nothing they do to an
 * answer reaches the cache.
 */
export class SoleWriterCache<V> {
  private readonly entries = new Map<string, V>();
  /**
   * Reads and `updating` calls in flight by record: a write of the record (or of all) marks them
   * overlapped, and an overlapped one keeps nothing.
   */
  private readonly inFlight = new Map<string, Set<{ overlapped: boolean }>>();

  constructor(readonly capacity: number) {}

  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return copyPlainData(cached);
    }
    const loaded = await this.tracked(key, load);
    if (loaded.value !== undefined && !loaded.overlapped) this.keep(key, loaded.value);
    return loaded.value;
  }

  /** The cached record, if any, as a copy; it does not count as a use. */
  peek(key: string): V | undefined {
    const cached = this.entries.get(key);
    return cached === undefined ? undefined : copyPlainData(cached);
  }

  /** Runs a write of the records under `keys` (all records when undefined), dropping them around it. */
  async writing<T>(keys: readonly string[] | undefined, write: () => Promise<T>): Promise<T> {
    this.drop(keys);
    try {
      return await write();
    } finally {
      this.drop(keys);
    }
  }

  /**
   * Runs a write whose effect on one record is known: `change` gives the record as the write left
   * it (from what the write returned). A record cached before the write stays cached with the
   * change applied, so the next read needs no trip to the store. Another write of the same record
   * (or of all) meanwhile, or a failed write, drops it as `writing` does.
   */
  async updating<T>(key: string, write: () => Promise<T>, change: (record: V, written: T) => V): Promise<T> {
    const before = this.entries.get(key);
    this.drop([key]);
    let written: { value: T; overlapped: boolean };
    try {
      written = await this.tracked(key, write);
    } finally {
      this.drop([key]);
    }
    if (before !== undefined && !written.overlapped) this.keep(key, change(before, written.value));
    return written.value;
  }

  /** Runs a read or write of one record, telling whether a write of it (or of all) overlapped. */
  private async tracked<T>(key: string, run: () => Promise<T>): Promise<{ value: T; overlapped: boolean }> {
    const call = { overlapped: false };
    const calls = this.inFlight.get(key) ?? new Set();
    this.inFlight.set(key, calls.add(call));
    try {
      const value = await run();
      return { value, overlapped: call.overlapped };
    } finally {
      calls.delete(call);
      if (calls.size === 0) this.inFlight.delete(key);
    }
  }

  private keep(key: string, value: V): void {
    this.entries.set(key, copyPlainData(value));
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  private drop(keys: readonly string[] | undefined): void {
    for (const key of keys ?? this.inFlight.keys()) {
      for (const call of this.inFlight.get(key) ?? []) call.overlapped = true;
    }
    if (keys === undefined) this.entries.clear();
    else for (const key of keys) this.entries.delete(key);
  }
}
