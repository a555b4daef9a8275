import { z } from 'zod';
import { BLOCKCHAINS, type CatalogEntry, DATASET_CATEGORIES } from '../core/catalog';
import { pagination, paginationSchema } from '../http/pagination';
import { contractAddressesOf, type RankedEntry } from './catalog-service';
import { DATASET_TYPE_BY_CATEGORY, DATASET_TYPES, type SearchDetail } from './schemas';

// REST answers (Dune's field names). The schemas document them in the OpenAPI document and type
// the functions that build them.

const datasetMetadataResponse = z.object({
  schema: z.string(),
  table: z.string(),
  project: z.string().nullable(),
  contract_name: z.string().nullable(),
  event_name: z.string().nullable(),
  partition_column: z.string().describe('Filter on it so the engine reads less data.'),
  contract_addresses: z.array(z.string()),
  row_count: z.number().int().nullable(),
  size_bytes: z.number().int().nullable().describe('Bytes a full scan reads (estimate).'),
  time_range: z.object({ min: z.string(), max: z.string() }).nullable(),
  popularity: z.number(),
});

const columnResponse = z.object({ name: z.string(), type: z.string(), nullable: z.boolean() });

export const datasetResponse = z.object({
  full_name: z.string(),
  type: z.enum(DATASET_TYPES),
  category: z.enum(DATASET_CATEGORIES),
  blockchains: z.array(z.enum(BLOCKCHAINS)),
  description: z.string(),
  is_private: z.boolean(),
  owner: z.object({ type: z.enum(['account', 'system']), handle: z.string().optional() }),
  columns: z.array(
    columnResponse.extend({
      metadata: z.object({ description: z.string(), filtering_column: z.boolean() }),
    }),
  ),
  metadata: datasetMetadataResponse,
  updated_at: z.string().nullable(),
});

/** `GET /v1/datasets/{full_name}` and list items: the whole description of one table. */
export function datasetResponseOf(entry: CatalogEntry): z.output<typeof datasetResponse> {
  const { definition, stats } = entry;
  return {
    full_name: definition.fullName,
    type: DATASET_TYPE_BY_CATEGORY[definition.category],
    category: definition.category,
    blockchains: definition.blockchains,
    description: definition.description,
    is_private: entry.isPrivate,
    owner: entry.ownerAccountId
      ? { type: 'account' as const }
      : { handle: 'service', type: 'system' as const },
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

function datasetMetadata(entry: CatalogEntry): z.output<typeof datasetMetadataResponse> {
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

export const datasetListResponse = z.object({
  datasets: z.array(datasetResponse),
  total: z.number().int(),
  ...paginationSchema.shape,
});

export function datasetListResponseOf(
  page: { entries: CatalogEntry[]; total: number },
  limit: number,
  offset: number,
): z.output<typeof datasetListResponse> {
  return {
    datasets: page.entries.map(datasetResponseOf),
    total: page.total,
    ...pagination(page.total, limit, offset),
  };
}

const searchResultResponse = z.object({
  full_name: z.string(),
  category: z.enum(DATASET_CATEGORIES),
  dataset_type: z.enum(DATASET_TYPES),
  blockchains: z.array(z.enum(BLOCKCHAINS)),
  visibility: z.enum(['private', 'public']),
  owner_scope: z.enum(['me', 'public']),
  description: z.string(),
  partition_column: z.string(),
  row_count: z.number().int().nullable(),
  size_bytes: z.number().int().nullable(),
  score: z.number().optional().describe('Relevance; higher is better.'),
  schema: z.array(columnResponse).optional().describe('With include_schema.'),
  metadata: datasetMetadataResponse.optional().describe('With include_metadata.'),
});

/** Search results: compact by default; `include_schema` / `include_metadata` opt in to more. */
function searchResultOf(
  entry: CatalogEntry,
  detail: SearchDetail,
  score?: number,
): z.output<typeof searchResultResponse> {
  const { definition, stats } = entry;
  return {
    full_name: definition.fullName,
    category: definition.category,
    dataset_type: DATASET_TYPE_BY_CATEGORY[definition.category],
    blockchains: definition.blockchains,
    visibility: entry.isPrivate ? 'private' : 'public',
    owner_scope: entry.ownerAccountId ? 'me' : 'public',
    description: definition.description,
    partition_column: definition.partitionColumn,
    row_count: stats?.rowCount ?? null,
    size_bytes: stats?.sizeBytes ?? null,
    ...(score !== undefined ? { score: Math.round(score * 1000) / 1000 } : {}),
    ...(detail.includeSchema
      ? {
          schema: definition.columns.map((column) => ({
            name: column.name,
            type: column.type,
            nullable: column.nullable ?? true,
          })),
        }
      : {}),
    ...(detail.includeMetadata ? { metadata: datasetMetadata(entry) } : {}),
  };
}

export const datasetSearchResponse = z.object({
  total: z.number().int(),
  results: z.array(searchResultResponse),
  pagination: paginationSchema,
  unmatched_words: z
    .array(z.string())
    .optional()
    .describe(
      'Present when no table matches every word of the query: the results match some words, and these words matched no table.',
    ),
});

export function datasetSearchResponseOf(
  found: { ranked: RankedEntry[]; total: number; unmatchedWords?: string[] },
  detail: SearchDetail,
  page: { limit: number; offset: number },
): z.output<typeof datasetSearchResponse> {
  return {
    total: found.total,
    results: found.ranked.map(({ entry, score }) => searchResultOf(entry, detail, score)),
    pagination: pagination(found.total, page.limit, page.offset),
    ...(found.unmatchedWords?.length ? { unmatched_words: found.unmatchedWords } : {}),
  };
}

export const contractSearchResponse = datasetSearchResponse.extend({ contract_address: z.string() });

export function contractSearchResponseOf(
  found: { entries: CatalogEntry[]; total: number },
  detail: SearchDetail,
  search: { contractAddress: string; limit: number; offset: number },
): z.output<typeof contractSearchResponse> {
  return {
    total: found.total,
    contract_address: search.contractAddress,
    results: found.entries.map((entry) => searchResultOf(entry, detail)),
    pagination: pagination(found.total, search.limit, search.offset),
  };
}
