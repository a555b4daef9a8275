import type { CatalogEntry, DatasetCategory } from '../core/catalog';
import { contractAddressesOf } from './catalog-service';
import { DATASET_TYPE_BY_CATEGORY } from './schemas';

/** `GET /v1/datasets/{full_name}` and list items: the whole description of one table. */
export function datasetResponse(entry: CatalogEntry) {
  const { definition, stats } = entry;
  return {
    full_name: definition.fullName,
    type: DATASET_TYPE_BY_CATEGORY[definition.category],
    category: definition.category,
    blockchains: definition.blockchains,
    description: definition.description,
    is_private: entry.isPrivate,
    owner: entry.ownerAccountId ? { type: 'account' } : { handle: 'service', type: 'system' },
    columns: definition.columns.map((column) => ({
      name: column.name,
      type: column.type,
      nullable: column.nullable ?? true,
      metadata: {
        description: column.description,
        filtering_column: column.name === definition.partitionColumn,
      },
    })),
    metadata: datasetMetadata(entry),
    updated_at: stats?.refreshedAt ?? null,
  };
}

function datasetMetadata(entry: CatalogEntry) {
  const { definition, stats } = entry;
  return {
    schema: definition.schema,
    table: definition.table,
    project: definition.project ?? null,
    contract_name: definition.contractName ?? null,
    event_name: definition.eventName ?? null,
    partition_column: definition.partitionColumn,
    contract_addresses: definition.category === 'decoded' ? contractAddressesOf(entry) : [],
    row_count: stats?.rowCount ?? null,
    size_bytes: stats?.sizeBytes ?? null,
    time_range: stats?.timeRange ?? null,
    popularity: definition.popularity ?? 0,
  };
}

/** Search results: compact by default; `include_schema` / `include_metadata` opt in to more. */
export function searchResult(
  entry: CatalogEntry,
  options: { includeSchema: boolean; includeMetadata: boolean; score?: number },
) {
  const { definition, stats } = entry;
  return {
    full_name: definition.fullName,
    category: definition.category,
    dataset_type: DATASET_TYPE_BY_CATEGORY[definition.category as DatasetCategory],
    blockchains: definition.blockchains,
    visibility: entry.isPrivate ? 'private' : 'public',
    owner_scope: entry.ownerAccountId ? 'me' : 'public',
    description: definition.description,
    partition_column: definition.partitionColumn,
    row_count: stats?.rowCount ?? null,
    size_bytes: stats?.sizeBytes ?? null,
    ...(options.score !== undefined ? { score: Math.round(options.score * 1000) / 1000 } : {}),
    ...(options.includeSchema
      ? {
          schema: definition.columns.map((column) => ({
            name: column.name,
            type: column.type,
            nullable: column.nullable ?? true,
          })),
        }
      : {}),
    ...(options.includeMetadata ? { metadata: datasetMetadata(entry) } : {}),
  };
}
