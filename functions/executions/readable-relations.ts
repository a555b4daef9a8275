import { QueryFailure, type ReadableRelation } from '../core/engine';
import { normalizeTableName, type SqlTableReferenceParser } from '../core/lineage';
import {
  MATERIALIZED_VIEW_CATALOG,
  type MaterializedView,
  type MaterializedViewStore,
} from '../core/materialized-views';
import { mayListRelations, mayNameCatalog, unrefreshedViewMessage } from '../core/stored-relations';
import { UPLOAD_CATALOG, type UploadStore } from '../core/uploads';

/**
 * The stored relations an account's SQL may read, each at its current version: materialized views
 * (`mv.<owner>.result_<name>`) and uploaded tables (`dune.<namespace>.<table>`), its own and public
 * ones. Resolved once when a run starts, so a refresh or insert completing mid-run never mixes
 * versions. Each kind is listed only when the SQL names its catalog, or may list the catalogs
 * (information_schema, SHOW). SQL that reads a view it may read but that has not completed a
 * refresh yet (nothing to read) fails with a QueryFailure saying so, as the engine would fail it
 * for a view that does not exist.
 */
export async function readableRelations(
  stores: {
    materializedViews: MaterializedViewStore;
    uploads: UploadStore;
    sqlParser: SqlTableReferenceParser;
  },
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
  const unrefreshed = views.filter((view) => !(view.currentExecutionId && view.columns));
  if (unrefreshed.length) await refuseUnrefreshed(stores.sqlParser, sql, unrefreshed, accountId);
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

/** Fails when the SQL reads one of the views (none has a version to read yet). */
async function refuseUnrefreshed(
  parser: SqlTableReferenceParser,
  sql: string,
  views: readonly MaterializedView[],
  accountId: string,
): Promise<void> {
  // Parsed only when a view's name is in the text at all.
  const text = sql.toLowerCase();
  const named = views.filter((view) => text.includes(view.name.toLowerCase()));
  if (named.length === 0) return;
  let read: Set<string>;
  try {
    read = new Set((await parser.tablesReadBy(sql)).map(normalizeTableName));
  } catch {
    return; // SQL the parser cannot read: the engine says what is wrong with it
  }
  const view = named.find((candidate) => read.has(candidate.fullName.toLowerCase()));
  if (view) {
    throw new QueryFailure(
      'execution_error',
      unrefreshedViewMessage(view.fullName, view.accountId === accountId),
    );
  }
}
