import type { TableStats } from './catalog';

/** Where measured table statistics live (DynamoDB in both hosts). */
export interface CatalogStatsStore {
  putStats(stats: readonly TableStats[]): Promise<void>;
  listStats(): Promise<TableStats[]>;
}
