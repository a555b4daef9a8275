import type { Account } from '../core/accounts';
import type { CatalogEntry } from '../core/catalog';
import { UPLOAD_CATALOG, type UploadedTable, type UploadStore } from '../core/uploads';
import type { UserTableSource } from '../datasets/catalog-service';

/** Uploaded tables as catalog entries (searchTables, /v1/datasets): the caller's own and public ones. */
export class UploadedTables implements UserTableSource {
  constructor(private readonly store: UploadStore) {}

  async entriesFor(account: Account | undefined): Promise<CatalogEntry[]> {
    if (!account) return [];
    return (await this.store.listReadableBy(account.accountId)).map(toEntry);
  }
}

function toEntry(table: UploadedTable): CatalogEntry {
  return {
    definition: {
      fullName: table.fullName,
      schema: `${UPLOAD_CATALOG}.${table.namespace}`,
      table: table.tableName,
      category: 'uploaded_table',
      blockchains: [],
      description: table.description || `Table uploaded by ${table.namespace}.`,
      project: table.namespace,
      partitionColumn:
        table.columns.find((column) => column.type === 'date' || column.type === 'timestamp')?.name ?? '',
      columns: table.columns.map((column) => ({
        name: column.name,
        type: column.type,
        description: '',
        nullable: column.nullable,
      })),
      popularity: 0.3,
    },
    stats: {
      fullName: table.fullName,
      rowCount: table.rowCount,
      sizeBytes: table.sizeBytes,
      columnBytes: {},
      refreshedAt: table.updatedAt,
    },
    ownerAccountId: table.accountId,
    isPrivate: table.isPrivate,
  };
}
