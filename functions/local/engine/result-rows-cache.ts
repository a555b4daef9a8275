import type { DuckDBValue } from '@duckdb/node-api';
import { storedBytes } from './result-values';

/** A result of at most this many values (rows × columns) is read whole when its run ends. */
export const PREFETCH_MAX_VALUES = 200_000;
/** The cache's bound on the estimated memory of the rows it holds, over all results. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
/** A JavaScript value's cost beyond its stored bytes (object header, array slot), estimated. */
const PER_VALUE_OVERHEAD = 16;

interface Entry {
  rows: Promise<DuckDBValue[][] | undefined>;
  bytes: number;
}

/**
 * The rows of small results, read whole when their run ends (`DuckDbResultStore.warm`), so the
 * first pages a client asks for right after the end are sliced from memory instead of read from
 * the file while the host is still recording the run. Results never change once stored, so an
 * entry is exact until the result is deleted; the oldest entries go first past the byte bound.
 */
export class ResultRowsCache {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;

  constructor(private readonly maxBytes = MAX_CACHED_BYTES) {}

  /** Starts reading a result's rows; a failed read leaves no entry (the file is read per page). */
  load(executionId: string, read: () => Promise<DuckDBValue[][]>): void {
    if (this.entries.has(executionId)) return;
    const entry: Entry = { rows: Promise.resolve(undefined), bytes: 0 };
    entry.rows = read().then(
      (rows) => {
        if (this.entries.get(executionId) !== entry) return undefined;
        entry.bytes = estimatedBytes(rows);
        this.totalBytes += entry.bytes;
        this.evictBeyondBound(executionId, entry);
        return this.entries.get(executionId) === entry ? rows : undefined;
      },
      () => {
        this.delete(executionId, entry);
        return undefined;
      },
    );
    this.entries.set(executionId, entry);
  }

  /** The result's rows in stored order, once read; undefined when not cached. */
  async get(executionId: string): Promise<DuckDBValue[][] | undefined> {
    return this.entries.get(executionId)?.rows;
  }

  delete(executionId: string, only?: Entry): void {
    const entry = this.entries.get(executionId);
    if (!entry || (only && entry !== only)) return;
    this.entries.delete(executionId);
    this.totalBytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  /** Drops a result too big alone; otherwise the oldest others until the total fits. */
  private evictBeyondBound(kept: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes) {
      this.delete(kept, entry);
      return;
    }
    for (const [executionId] of this.entries) {
      if (this.totalBytes <= this.maxBytes) return;
      if (executionId !== kept) this.delete(executionId);
    }
  }
}

function estimatedBytes(rows: DuckDBValue[][]): number {
  let bytes = 0;
  for (const row of rows) {
    for (const value of row) bytes += storedBytes(value) + PER_VALUE_OVERHEAD;
  }
  return bytes;
}
