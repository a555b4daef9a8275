import type { MaterializedView, MaterializedViewStore, PublishedVersion } from '../core/materialized-views';
import { SoleWriterCache } from '../core/sole-writer-cache';

/**
 * A MaterializedViewStore for a process that writes every view record itself (the local host):
 * views and the lists of views an account may read are served from memory until this process
 * writes a view. A pipeline reads each view of its lineage several times, and every submit of SQL
 * naming `mv.` lists the views its account may read; each was a DynamoDB read.
 */
export class SoleWriterViewCache implements MaterializedViewStore {
  private readonly views: SoleWriterCache<MaterializedView>;
  /** Lists span accounts (other accounts' public views): any view write drops them all. */
  private readonly lists: SoleWriterCache<MaterializedView[]>;

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
    return this.write(view.fullName, () => this.store.create(view));
  }

  update(
    fullName: string,
    changes: Partial<Pick<MaterializedView, 'isPrivate' | 'performance' | 'schedule'>>,
    updatedAt: string,
  ): Promise<MaterializedView> {
    return this.write(fullName, () => this.store.update(fullName, changes, updatedAt));
  }

  recordRefresh(fullName: string, executionId: string): Promise<void> {
    return this.write(fullName, () => this.store.recordRefresh(fullName, executionId));
  }

  publish(fullName: string, version: PublishedVersion): Promise<boolean> {
    return this.write(fullName, () => this.store.publish(fullName, version));
  }

  delete(fullName: string): Promise<void> {
    return this.write(fullName, () => this.store.delete(fullName));
  }

  async listByAccount(accountId: string): Promise<MaterializedView[]> {
    return (await this.lists.read(`own:${accountId}`, () => this.store.listByAccount(accountId))) ?? [];
  }

  async listReadableBy(accountId: string): Promise<MaterializedView[]> {
    return (await this.lists.read(`readable:${accountId}`, () => this.store.listReadableBy(accountId))) ?? [];
  }

  private write<T>(fullName: string, write: () => Promise<T>): Promise<T> {
    return this.lists.writing(undefined, () => this.views.writing([fullName], write));
  }
}
