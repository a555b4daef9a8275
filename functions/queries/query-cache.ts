import { newerCompleted, type QueryChanges, type QueryStore, type SavedQuery } from '../core/queries';
import { SoleWriterCache } from '../core/sole-writer-cache';

/**
 * A QueryStore for a process that writes every query record itself (the local host): a query read
 * once is served from memory until this process changes it. A pipeline reads each query of its
 * lineage several times (lineage, validation, node start); each read was a DynamoDB get.
 */
export class SoleWriterQueryCache implements QueryStore {
  private readonly cache: SoleWriterCache<SavedQuery>;

  constructor(
    private readonly store: QueryStore,
    capacity = 10_000,
  ) {
    this.cache = new SoleWriterCache(capacity);
  }

  nextQueryId(): Promise<number> {
    return this.store.nextQueryId();
  }

  create(query: SavedQuery): Promise<void> {
    return this.cache.writing([String(query.queryId)], () => this.store.create(query));
  }

  get(queryId: number): Promise<SavedQuery | undefined> {
    return this.cache.read(String(queryId), () => this.store.get(queryId));
  }

  update(queryId: number, expectedVersion: number, changes: QueryChanges, updatedAt: string) {
    return this.cache.writing([String(queryId)], () =>
      this.store.update(queryId, expectedVersion, changes, updatedAt),
    );
  }

  setLatestCompletedExecution(queryId: number, executionId: string): Promise<void> {
    // Kept with the change: a saved query's next run (or pipeline) reads it again at once.
    return this.cache.updating(
      String(queryId),
      () => this.store.setLatestCompletedExecution(queryId, executionId),
      (query) => ({ ...query, latestCompletedExecutionId: newerCompleted(query, executionId) }),
    );
  }

  listByAccount(accountId: string, limit: number, offset: number) {
    return this.store.listByAccount(accountId, limit, offset);
  }
}
