/**
 * Records read through from a store by the process that is the store's only writer (the local
 * host), kept in memory until that process writes them. Every write goes through `writing`, which
 * drops the record before and after the write; a read that overlapped any write is answered but
 * not kept, so a value read just before a write landed is never served afterwards. Never in AWS,
 * where each Lambda instance is one writer among many. Bounded: least recently used out first.
 * Callers get copies, so nothing they do to an answer reaches the cache.
 */
export class SoleWriterCache<V> {
  private readonly entries = new Map<string, V>();
  /** Bumped by every write: a read that saw it change keeps nothing. */
  private writes = 0;

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
    if (loaded !== undefined && this.writes === writesBefore) {
      this.entries.set(key, structuredClone(loaded));
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
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

  private drop(keys: readonly string[] | undefined): void {
    this.writes++;
    if (keys === undefined) this.entries.clear();
    else for (const key of keys) this.entries.delete(key);
  }
}
