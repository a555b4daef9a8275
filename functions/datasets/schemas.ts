import { z } from 'zod';
import { BLOCKCHAINS, DATASET_CATEGORIES, type DatasetCategory } from '../core/catalog';

/** dataset_type names as Dune-style clients know them, one per category. */
export const DATASET_TYPE_BY_CATEGORY = {
  canonical: 'canonical_table',
  decoded: 'decoded_table',
  spell: 'spell',
  materialized_view: 'materialized_view',
  uploaded_table: 'uploaded_table',
} as const;
export const DATASET_TYPES = Object.values(DATASET_TYPE_BY_CATEGORY);

export const blockchainSchema = z.enum(BLOCKCHAINS);
export const categorySchema = z.enum(DATASET_CATEGORIES);

/** Query-string lists come comma-separated: `?type=decoded_table,spell`. */
function commaList<T extends z.ZodType<unknown, string>>(item: T) {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));
}

// The bounds are zod's own checks (no refine): the OpenAPI document states them.
const pageInteger = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min, `must be at least ${min}`).max(max).default(fallback);

export const listDatasetsQuery = z
  .strictObject({
    limit: pageInteger(1, 250, 50),
    offset: pageInteger(0, Number.MAX_SAFE_INTEGER, 0),
    /** Category or dataset_type names, comma-separated. */
    type: commaList(z.enum([...DATASET_CATEGORIES, ...DATASET_TYPES])).optional(),
    blockchain: commaList(blockchainSchema).optional(),
    schema: commaList(z.string().min(1)).optional(),
  })
  .transform((query) => ({
    filter: { categories: categoriesOf(query.type), blockchains: query.blockchain, schemas: query.schema },
    limit: query.limit,
    offset: query.offset,
  }));

export const getDatasetPath = z.strictObject({
  full_name: z.string().min(3).max(300),
});

// The catalog search operations. Each field's rules and limits live here once; the REST bodies
// (snake_case, Dune's names) and the MCP tool arguments (functions/mcp/discovery-tools.ts,
// camelCase) are renamings over these schemas.

/** searchTables' input: words, filters and a page. */
export const tableSearchSchema = z.strictObject({
  query: z.string().max(500).default('*'),
  categories: z.array(categorySchema).max(10).optional(),
  blockchains: z.array(blockchainSchema).max(20).optional(),
  schemas: z.array(z.string().min(1).max(200)).max(50).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
});
export type TableSearch = z.output<typeof tableSearchSchema>;

const tableSearch = tableSearchSchema.shape;

/** An EVM contract address, any case; lower case from here on. */
export const contractAddressSchema = z
  .string()
  .trim()
  .regex(
    /^0x[0-9a-fA-F]{40}$/,
    'must be a 20-byte EVM address: 0x followed by 40 hex characters, e.g. 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  )
  .transform((address) => address.toLowerCase());

/** searchTablesByContractAddress' input. */
export const contractSearchSchema = z.strictObject({
  contractAddress: contractAddressSchema,
  blockchains: tableSearch.blockchains,
  limit: tableSearch.limit,
  offset: tableSearch.offset,
});
export type ContractSearch = z.output<typeof contractSearchSchema>;

/** How much of each table a REST search answer shows. */
export interface SearchDetail {
  includeSchema: boolean;
  includeMetadata: boolean;
}

const detail = {
  include_schema: z.boolean().default(false),
  include_metadata: z.boolean().default(false),
};

export const searchDatasetsBody = z
  .strictObject({
    ...tableSearch,
    /** dataset_type names select the same categories. */
    dataset_types: z.array(z.enum(DATASET_TYPES)).max(10).optional(),
    ...detail,
  })
  .transform((body) => ({
    search: {
      query: body.query,
      categories: categoriesOf([...(body.categories ?? []), ...(body.dataset_types ?? [])]),
      blockchains: body.blockchains,
      schemas: body.schemas,
      limit: body.limit,
      offset: body.offset,
    } satisfies TableSearch,
    detail: { includeSchema: body.include_schema, includeMetadata: body.include_metadata } as SearchDetail,
  }));

export const searchByContractBody = z
  .strictObject({
    contract_address: contractAddressSchema,
    blockchains: tableSearch.blockchains,
    limit: tableSearch.limit,
    offset: tableSearch.offset,
    ...detail,
  })
  .transform((body) => ({
    search: {
      contractAddress: body.contract_address,
      blockchains: body.blockchains,
      limit: body.limit,
      offset: body.offset,
    } satisfies ContractSearch,
    detail: { includeSchema: body.include_schema, includeMetadata: body.include_metadata } as SearchDetail,
  }));

const CATEGORY_BY_TYPE = Object.fromEntries(
  Object.entries(DATASET_TYPE_BY_CATEGORY).map(([category, type]) => [type, category as DatasetCategory]),
) as Record<string, DatasetCategory>;

/** Category names and dataset_type names both select a category. */
export function categoriesOf(names: readonly string[] | undefined): DatasetCategory[] | undefined {
  if (!names?.length) return undefined;
  return [...new Set(names.map((name) => CATEGORY_BY_TYPE[name] ?? (name as DatasetCategory)))];
}
