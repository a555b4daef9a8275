/**
 * What a run learns about its SQL before it runs it — the DuckDB translation of its DuneSQL and
 * its result's columns — kept in the engine process for the next run of the same text: a saved
 * query, a dashboard, a scheduled refresh or a pipeline node runs the same SQL again and again,
 * and each of the two costs about a millisecond of a cheap query's few. Both are functions of the
 * text alone (the columns also of the warehouse's schema, which a host never changes while it
 * runs, and of the views the SQL reads, so SQL that reads a view is never cached). Bounded: the
 * least recently used entries go first.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map order is insertion order: re-inserting marks it most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
