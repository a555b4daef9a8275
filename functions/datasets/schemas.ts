import { z } from 'zod';
import { BLOCKCHAINS, DATASET_CATEGORIES } from '../core/catalog';

/** dataset_type names as Dune-style clients know them, one per category. */
export const DATASET_TYPE_BY_CATEGORY = {
  canonical: 'canonical_table',
  decoded: 'decoded_table',
  spell: 'spell',
  materialized_view: 'materialized_view',
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

const pageInteger = (max: number, fallback: number) =>
  z.coerce.number().int().min(0).max(max).default(fallback);

export const listDatasetsQuery = z.strictObject({
  limit: pageInteger(250, 50).refine((n) => n > 0, 'limit must be at least 1'),
  offset: pageInteger(Number.MAX_SAFE_INTEGER, 0),
  /** Category or dataset_type names, comma-separated. */
  type: commaList(z.enum([...DATASET_CATEGORIES, ...DATASET_TYPES])).optional(),
  blockchain: commaList(blockchainSchema).optional(),
  schema: commaList(z.string().min(1)).optional(),
});

export const getDatasetPath = z.strictObject({
  full_name: z.string().min(3).max(300),
});

export const searchDatasetsBody = z.strictObject({
  query: z.string().max(500).default('*'),
  categories: z.array(categorySchema).max(10).optional(),
  blockchains: z.array(blockchainSchema).max(20).optional(),
  schemas: z.array(z.string().min(1).max(200)).max(50).optional(),
  dataset_types: z.array(z.enum(DATASET_TYPES)).max(10).optional(),
  include_schema: z.boolean().default(false),
  include_metadata: z.boolean().default(false),
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
});
export type SearchDatasetsBody = z.output<typeof searchDatasetsBody>;

export const contractAddressSchema = z
  .string()
  .trim()
  .regex(
    /^0x[0-9a-fA-F]{40}$/,
    'contract_address must be a 20-byte EVM address: 0x followed by 40 hex characters, e.g. 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  )
  .transform((address) => address.toLowerCase());

export const searchByContractBody = z.strictObject({
  contract_address: contractAddressSchema,
  blockchains: z.array(blockchainSchema).max(20).optional(),
  include_schema: z.boolean().default(false),
  include_metadata: z.boolean().default(false),
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
});
