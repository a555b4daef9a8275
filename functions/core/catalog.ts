/**
 * The table catalog model: what every table is (definition, fixed in code or created by a user)
 * and what it holds (statistics, measured from the data). Discovery endpoints and MCP tools read
 * the two joined as a CatalogEntry.
 */
export const DATASET_CATEGORIES = [
  'canonical',
  'decoded',
  'spell',
  'materialized_view',
  'uploaded_table',
] as const;
export type DatasetCategory = (typeof DATASET_CATEGORIES)[number];

export const BLOCKCHAINS = ['ethereum', 'base', 'arbitrum', 'bitcoin'] as const;
export type Blockchain = (typeof BLOCKCHAINS)[number];

export interface ColumnDefinition {
  name: string;
  /** DuneSQL type name users see (varchar, varbinary, uint256, bigint, timestamp, array(...); see sql-types.ts). */
  type: string;
  description: string;
  nullable?: boolean;
}

export interface TableDefinition {
  /** `<schema>.<table>`, e.g. `uniswap_v3_ethereum.Pair_evt_Swap`. */
  fullName: string;
  schema: string;
  table: string;
  category: DatasetCategory;
  blockchains: Blockchain[];
  description: string;
  /** Project/protocol for decoded and spell tables (e.g. `uniswap_v3`, `erc20`, `dex`). */
  project?: string;
  /** Decoded tables: the contract name and event, e.g. `Pair` / `Swap`. */
  contractName?: string;
  eventName?: string;
  /** The time column to filter on so the engine prunes data (block_time, evt_block_time, minute...). */
  partitionColumn: string;
  columns: ColumnDefinition[];
  /** Decoded tables: well-known contract addresses (lowercase 0x hex) known without reading data. */
  contractAddresses?: string[];
  /** Search ranking prior in [0, 1]: how central the table is for analysts. */
  popularity?: number;
}

/** Measured from the data; refreshed whenever the data is (re)built. */
export interface TableStats {
  fullName: string;
  rowCount: number;
  /** Estimated bytes a full scan reads (uncompressed width × rows). */
  sizeBytes: number;
  /** Estimated bytes per column for a full scan, so column subsets can be priced. */
  columnBytes: Record<string, number>;
  /** Min/max of the partition column (ISO-8601), so a time range can be priced. */
  timeRange?: { min: string; max: string };
  /** Decoded tables: the distinct emitting contracts found in the data (bounded). */
  contractAddresses?: string[];
  refreshedAt: string;
}

export interface CatalogEntry {
  definition: TableDefinition;
  stats?: TableStats;
  /** Owner account for user tables (materialized views); absent for public base tables. */
  ownerAccountId?: string;
  isPrivate: boolean;
}
