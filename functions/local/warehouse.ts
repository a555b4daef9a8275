import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableStats } from '../core/catalog';
import { BASE_TABLES } from '../datasets/base-tables';
import { type SampleWindow, utcDate } from './sample-data/config';
import { generateSampleData } from './sample-data/generate';
import { measureTableStats } from './sample-data/table-stats';

export const DEFAULT_SCALE = 1;
export const DEFAULT_SEED = 42;

/**
 * Bumped whenever the warehouse's tables change shape (v2: Dune's types, varbinary addresses, a
 * window ending at the build date), so a warehouse built by an older version is rebuilt on start.
 */
export const WAREHOUSE_FORMAT = 2;

export interface WarehouseManifest {
  format: number;
  scale: number;
  seed: number;
  /** UTC day the data was built for: the data window is the 30 days before it. */
  buildDate: string;
  /** The data window, start inclusive and end exclusive (ISO-8601 UTC). */
  window: { start: string; end: string };
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
  /** `YYYY-MM-DD`; default today (UTC). Only used when the data is (re)built. */
  buildDate?: string;
  log?: (message: string) => void;
}): Promise<Warehouse> {
  const path = join(options.dataDir, 'warehouse.duckdb');
  const manifestPath = join(options.dataDir, 'warehouse.json');
  const existing = await readManifest(manifestPath);
  const wantScale = options.scale ?? existing?.scale ?? DEFAULT_SCALE;
  const wantSeed = options.seed ?? existing?.seed ?? DEFAULT_SEED;
  const reason = rebuildReason(existing, { scale: wantScale, seed: wantSeed }, existsSync(path));
  if (existing && reason === undefined) {
    if (existing.buildDate < utcDate()) {
      options.log?.(
        `The sample data ends ${existing.window.end.slice(0, 10)} (built for ${existing.buildDate}): queries over ` +
          `"the last N days" see less of it each day. Delete ${path} to rebuild it for today.`,
      );
    }
    return { path, manifest: existing, generated: false };
  }

  await mkdir(options.dataDir, { recursive: true });
  const temporary = `${path}.building`;
  await rm(temporary, { force: true });
  await rm(`${temporary}.wal`, { force: true });
  options.log?.(`${reason} Generating sample onchain data (scale ${wantScale}, seed ${wantSeed})...`);
  const started = Date.now();
  const instance = await DuckDBInstance.create(temporary);
  let stats: TableStats[];
  let plan: Awaited<ReturnType<typeof generateSampleData>>;
  try {
    const connection = await instance.connect();
    plan = await generateSampleData(connection, {
      scale: wantScale,
      seed: wantSeed,
      buildDate: options.buildDate,
    });
    stats = await measureTableStats(connection, BASE_TABLES);
    await connection.run('CHECKPOINT');
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
  const manifest: WarehouseManifest = {
    format: WAREHOUSE_FORMAT,
    scale: wantScale,
    seed: wantSeed,
    buildDate: plan.buildDate,
    window: isoWindow(plan.window),
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

/** Why the existing warehouse cannot serve a start with these settings; undefined when it can. */
export function rebuildReason(
  existing: WarehouseManifest | undefined,
  want: { scale: number; seed: number },
  fileExists: boolean,
): string | undefined {
  if (!existing || !fileExists) return 'No sample data yet.';
  if (existing.format !== WAREHOUSE_FORMAT) {
    return 'The sample data was built by an older version (other table types); rebuilding it.';
  }
  if (existing.scale !== want.scale || existing.seed !== want.seed) {
    return `The sample data was built with scale ${existing.scale}, seed ${existing.seed}.`;
  }
  return undefined;
}

const isoWindow = (window: SampleWindow) => ({
  start: `${window.start.replace(' ', 'T')}.000Z`,
  end: `${window.end.replace(' ', 'T')}.000Z`,
});

async function readManifest(path: string): Promise<WarehouseManifest | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as WarehouseManifest;
  } catch {
    return undefined;
  }
}
