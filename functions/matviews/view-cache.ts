import {
  type MaterializedView,
  type MaterializedViewStore,
  type PublishedVersion,
  type ScheduleError,
  withRefreshRecorded,
  withVersion,
} from '../core/materialized-views';
import { SoleWriterCache } from '../core/sole-writer-cache';

/**
 * A MaterializedViewStore for a process that writes every view record itself (the local host):
 * views and the lists of views an account may read are served from memory until this process
 * writes a view. A pipeline reads each view of its lineage several times, and every submit of SQL
 * naming `mv.` lists the views its account may read; each was a DynamoDB read.
 *
 * A list keeps the names of its views, each read through the view cache, and a refresh's two
 * writes (its execution recorded, its version published) keep the view's record cached with
 * what they changed: the next submit's list needs no DynamoDB read, where it queried every view.
 * Only writes that can change who may read what (create, update, delete) drop the lists.
 */
export class SoleWriterViewCache implements MaterializedViewStore {
  private readonly views: SoleWriterCache<MaterializedView>;
  /**
   * The names in each list. Lists span accounts (other accounts' public views): a write that can
   * change which views a list holds drops them all.
   */
  private readonly lists: SoleWriterCache<string[]>;

  constructor(
    private readonly store: MaterializedViewStore,
    capacity = 10_000,
  ) {
    this.views = new SoleWriterCache(capacity);
    this.lists = new SoleWriterCache(capacity);
  }

  get(fullName: string): Promise<MaterializedView | undefined> {
    return this.views.read(fullName, () => this.store.get(fullName));
  }

  create(view: MaterializedView): Promise<void> {
    return this.writeListed(view.fullName, () => this.store.create(view));
  }

  update(
    fullName: string,
    changes: Partial<Pick<MaterializedView, 'isPrivate' | 'performance' | 'schedule'>>,
    updatedAt: string,
  ): Promise<MaterializedView> {
    return this.writeListed(fullName, () => this.store.update(fullName, changes, updatedAt));
  }

  recordRefresh(fullName: string, executionId: string): Promise<void> {
    // The cached list saves the store its read first (the store checks it is still current).
    const knownIds = this.views.peek(fullName)?.lastExecutionIds;
    return this.views.updating(
      fullName,
      () => this.store.recordRefresh(fullName, executionId, knownIds),
      (view) => ({ ...view, lastExecutionIds: withRefreshRecorded(view.lastExecutionIds, executionId) }),
    );
  }

  claimRefresh(fullName: string, executionId: string, seenIds: readonly string[]): Promise<boolean> {
    return this.views.updating(
      fullName,
      () => this.store.claimRefresh(fullName, executionId, seenIds),
      (view, claimed) =>
        claimed
          ? { ...view, lastExecutionIds: withRefreshRecorded(view.lastExecutionIds, executionId) }
          : view,
    );
  }

  publish(fullName: string, version: PublishedVersion): Promise<boolean> {
    return this.views.updating(
      fullName,
      () => this.store.publish(fullName, version),
      // Not published (a newer version is): the record is as it was.
      (view, published) => (published ? withVersion(view, version) : view),
    );
  }

  recordScheduleError(fullName: string, error: ScheduleError | undefined): Promise<void> {
    return this.views.updating(
      fullName,
      () => this.store.recordScheduleError(fullName, error),
      ({ scheduleError: _, ...view }) => (error ? { ...view, scheduleError: error } : view),
    );
  }

  delete(fullName: string): Promise<void> {
    return this.writeListed(fullName, () => this.store.delete(fullName));
  }

  listByAccount(accountId: string): Promise<MaterializedView[]> {
    return this.list(`own:${accountId}`, () => this.store.listByAccount(accountId));
  }

  listReadableBy(accountId: string): Promise<MaterializedView[]> {
    return this.list(`readable:${accountId}`, () => this.store.listReadableBy(accountId));
  }

  /** A list as the store answers it, or its views by their cached names (in the same order). */
  private async list(key: string, load: () => Promise<MaterializedView[]>): Promise<MaterializedView[]> {
    let loaded: MaterializedView[] | undefined;
    const names = await this.lists.read(key, async () => {
      loaded = await load();
      return loaded.map((view) => view.fullName);
    });
    if (loaded) return loaded;
    const views = await Promise.all((names ?? []).map((name) => this.get(name)));
    // A view deleted since the names were kept is gone from the list too.
    return views.filter((view): view is MaterializedView => view !== undefined);
  }

  /** A write that may add, remove or hide a view: the lists are dropped with the view's record. */
  private writeListed<T>(fullName: string, write: () => Promise<T>): Promise<T> {
    return this.lists.writing(undefined, () => this.views.writing([fullName], write));
  }
}
