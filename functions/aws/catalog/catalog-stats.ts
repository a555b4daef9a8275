import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TableStats } from '../../core/catalog';
import type { CatalogStatsStore } from '../../core/catalog-ports';

/**
 * Publishes the table statistics measured when the sample warehouse was built (`warehouse.json`
 * beside it) to a deployed stack's catalog statistics, so `getTableSize` and the dataset pages
 * answer there as they do locally. The figures estimate uncompressed bytes per column: for the
 * Snappy Parquet the loader uploads, an upper bound of what Athena scans (and bills).
 */
export async function publishCatalogStats(dataDir: string, store: CatalogStatsStore): Promise<TableStats[]> {
  const manifestPath = join(dataDir, 'warehouse.json');
  let manifest: { stats?: TableStats[] };
  try {
    manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { stats?: TableStats[] };
  } catch (error) {
    throw new Error(
      `Cannot read ${manifestPath} (run npm start once to build the warehouse): ${String(error)}`,
    );
  }
  if (!Array.isArray(manifest.stats) || manifest.stats.length === 0) {
    throw new Error(`${manifestPath} holds no table statistics; rebuild it with npm run generate-data.`);
  }
  await store.putStats(manifest.stats);
  return manifest.stats;
}
