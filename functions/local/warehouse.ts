import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableStats } from '../core/catalog';
import { BASE_TABLES } from '../datasets/base-tables';
import { generateSampleData } from './sample-data/generate';
import { measureTableStats } from './sample-data/table-stats';

export const DEFAULT_SCALE = 1;
export const DEFAULT_SEED = 42;

export interface WarehouseManifest {
  scale: number;
  seed: number;
  builtAt: string;
  buildMillis: number;
  stats: TableStats[];
}

export interface Warehouse {
  path: string;
  manifest: WarehouseManifest;
  /** True when this start built the data (first start, or a new --scale). */
  generated: boolean;
}

/**
 * The DuckDB file with the sample onchain data, built on first start. It is built under a temporary
 * name and renamed into place, so an interrupted build never leaves a half-made warehouse behind.
 * The manifest beside it records how it was built and its measured table statistics.
 */
export async function ensureWarehouse(options: {
  dataDir: string;
  scale?: number;
  seed?: number;
  log?: (message: string) => void;
}): Promise<Warehouse> {
  const path = join(options.dataDir, 'warehouse.duckdb');
  const manifestPath = join(options.dataDir, 'warehouse.json');
  const existing = await readManifest(manifestPath);
  const wantScale = options.scale ?? existing?.scale ?? DEFAULT_SCALE;
  const wantSeed = options.seed ?? existing?.seed ?? DEFAULT_SEED;
  if (existing && existsSync(path) && existing.scale === wantScale && existing.seed === wantSeed) {
    return { path, manifest: existing, generated: false };
  }

  await mkdir(options.dataDir, { recursive: true });
  const temporary = `${path}.building`;
  await rm(temporary, { force: true });
  await rm(`${temporary}.wal`, { force: true });
  options.log?.(`Generating sample onchain data (scale ${wantScale}, seed ${wantSeed})...`);
  const started = Date.now();
  const instance = await DuckDBInstance.create(temporary);
  let stats: TableStats[];
  try {
    const connection = await instance.connect();
    await generateSampleData(connection, { scale: wantScale, seed: wantSeed });
    stats = await measureTableStats(connection, BASE_TABLES);
    await connection.run('CHECKPOINT');
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
  const manifest: WarehouseManifest = {
    scale: wantScale,
    seed: wantSeed,
    builtAt: new Date().toISOString(),
    buildMillis: Date.now() - started,
    stats,
  };
  await rm(`${path}.wal`, { force: true });
  await rename(temporary, path);
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  options.log?.(`Sample data ready in ${(manifest.buildMillis / 1000).toFixed(1)} s.`);
  return { path, manifest, generated: true };
}

async function readManifest(path: string): Promise<WarehouseManifest | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as WarehouseManifest;
  } catch {
    return undefined;
  }
}
