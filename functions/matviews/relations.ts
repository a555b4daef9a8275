import type { ReadableRelation } from '../core/engine';
import { MATERIALIZED_VIEW_CATALOG, type MaterializedViewStore } from '../core/materialized-views';

/**
 * The materialized views an account's SQL may read (its own and public ones), each at its current
 * version. Resolved once when a run starts, so a refresh completing mid-run never mixes versions.
 */
export async function readableRelations(
  store: MaterializedViewStore,
  accountId: string,
): Promise<ReadableRelation[]> {
  const views = await store.listReadableBy(accountId);
  return views
    .filter((view) => view.currentExecutionId && view.columns)
    .map((view) => ({
      catalog: MATERIALIZED_VIEW_CATALOG,
      schema: view.ownerHandle,
      name: view.name,
      executionId: view.currentExecutionId!,
      columns: view.columns!,
    }));
}
