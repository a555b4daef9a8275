import type { ReadableRelation } from '../core/engine';
import { MATERIALIZED_VIEW_CATALOG, type MaterializedViewStore } from '../core/materialized-views';
import { mayListRelations, mayNameCatalog } from '../core/stored-relations';
import { UPLOAD_CATALOG, type UploadStore } from '../core/uploads';

/**
 * The stored relations an account's SQL may read, each at its current version: materialized views
 * (`mv.<owner>.result_<name>`) and uploaded tables (`dune.<namespace>.<table>`), its own and public
 * ones. Resolved once when a run starts, so a refresh or insert completing mid-run never mixes
 * versions. Each kind is listed only when the SQL names its catalog, or may list the catalogs
 * (information_schema, SHOW).
 */
export async function readableRelations(
  stores: { materializedViews: MaterializedViewStore; uploads: UploadStore },
  accountId: string,
  sql: string,
): Promise<ReadableRelation[]> {
  // information_schema and SHOW list them all (their names and columns), reading none.
  const lists = mayListRelations(sql);
  const [views, uploads] = await Promise.all([
    lists || mayNameCatalog(sql, [MATERIALIZED_VIEW_CATALOG])
      ? stores.materializedViews.listReadableBy(accountId)
      : [],
    lists || mayNameCatalog(sql, [UPLOAD_CATALOG]) ? stores.uploads.listReadableBy(accountId) : [],
  ]);
  return [
    ...views
      .filter((view) => view.currentExecutionId && view.columns)
      .map((view) => ({
        catalog: MATERIALIZED_VIEW_CATALOG,
        schema: view.ownerHandle,
        name: view.name,
        executionId: view.currentExecutionId!,
        columns: view.columns!,
      })),
    ...uploads.map((table) => ({
      catalog: UPLOAD_CATALOG,
      schema: table.namespace,
      name: table.tableName,
      executionId: table.generation,
      columns: table.columns.map(({ name, type }) => ({ name, type })),
      uploadFiles: table.files.map((file) => file.id),
    })),
  ];
}
