/**
 * Records read through from a store by the process that is the store's only writer (the local
 * host), kept in memory until that process writes them. Every write goes through `writing`, which
 * drops the record before and after the write, or `updating`, which keeps it with the write's
 * known change; a read that overlapped any write is answered but not kept, so a value read just
 * before a write landed is never served afterwards. Never in AWS, where each Lambda instance is
 * one writer among many. Bounded: least recently used out first. Callers get copies, so nothing
 * they do to an answer reaches the cache.
 */
export class SoleWriterCache<V> {
  private readonly entries = new Map<string, V>();
  /** Bumped by every write: a read that saw it change keeps nothing. */
  private writes = 0;
  /** `updating` calls in flight by record: any other write of the record marks them overlapped. */
  private readonly updates = new Map<string, Set<{ overlapped: boolean }>>();

  constructor(readonly capacity: number) {}

  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return structuredClone(cached);
    }
    const writesBefore = this.writes;
    const loaded = await load();
    if (loaded !== undefined && this.writes === writesBefore) this.keep(key, loaded);
    return loaded;
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
    const update = { overlapped: false };
    const updates = this.updates.get(key) ?? new Set();
    this.updates.set(key, updates.add(update));
    let written: T;
    try {
      written = await write();
    } finally {
      updates.delete(update);
      if (updates.size === 0) this.updates.delete(key);
      this.drop([key]);
    }
    if (before !== undefined && !update.overlapped) this.keep(key, change(before, written));
    return written;
  }

  private keep(key: string, value: V): void {
    this.entries.set(key, structuredClone(value));
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  private drop(keys: readonly string[] | undefined): void {
    this.writes++;
    for (const key of keys ?? this.updates.keys()) {
      for (const update of this.updates.get(key) ?? []) update.overlapped = true;
    }
    if (keys === undefined) this.entries.clear();
    else for (const key of keys) this.entries.delete(key);
  }
}
