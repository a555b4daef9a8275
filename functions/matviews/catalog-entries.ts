import type { Account } from '../core/accounts';
import type { CatalogEntry } from '../core/catalog';
import type { MaterializedView, MaterializedViewStore } from '../core/materialized-views';
import { duneSqlTypeName } from '../core/sql-types';
import type { UserTableSource } from '../datasets/catalog-service';

const TIME_TYPES = /^(TIMESTAMP|DATE)/i;

/** Materialized views as catalog entries: the caller's own and other accounts' public ones. */
export class MaterializedViewTables implements UserTableSource {
  constructor(private readonly store: MaterializedViewStore) {}

  async entriesFor(account: Account | undefined): Promise<CatalogEntry[]> {
    if (!account) return [];
    const views = await this.store.listReadableBy(account.accountId);
    return views.map(toEntry);
  }
}

function toEntry(view: MaterializedView): CatalogEntry {
  const [catalog, schema] = view.fullName.split('.');
  const columns = view.columns ?? [];
  return {
    definition: {
      fullName: view.fullName,
      schema: `${catalog}.${schema}`,
      table: view.name,
      category: 'materialized_view',
      blockchains: [],
      description: `Materialized view of query ${view.queryId} by ${view.ownerHandle}${view.lastRefreshedAt ? `, last refreshed ${view.lastRefreshedAt}` : ', not refreshed yet'}.`,
      project: view.ownerHandle,
      partitionColumn: columns.find((c) => TIME_TYPES.test(c.type))?.name ?? '',
      columns: columns.map((c) => ({ name: c.name, type: duneSqlTypeName(c.type), description: '' })),
      popularity: 0.3,
    },
    ...(view.currentExecutionId
      ? {
          stats: {
            fullName: view.fullName,
            rowCount: view.rowCount ?? 0,
            sizeBytes: view.tableSizeBytes ?? 0,
            columnBytes: {},
            refreshedAt: view.lastRefreshedAt ?? view.updatedAt,
          },
        }
      : {}),
    ownerAccountId: view.accountId,
    isPrivate: view.isPrivate,
  };
}
