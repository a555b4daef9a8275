import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureWarehouse,
  rebuildReason,
  WAREHOUSE_FORMAT,
  type Warehouse,
  type WarehouseManifest,
} from '../../functions/local/warehouse';

describe('the local warehouse and its manifest', () => {
  let dataDir: string;
  let built: Warehouse;
  const logs: string[] = [];
  const log = (message: string) => logs.push(message);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'warehouse-test-'));
    built = await ensureWarehouse({ dataDir, scale: 0.005, seed: 3, buildDate: '2026-11-01', log });
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('records the build date and the data window, which the table statistics fall inside', async () => {
    expect(built.generated).toBe(true);
    const manifest = JSON.parse(await readFile(join(dataDir, 'warehouse.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: WAREHOUSE_FORMAT,
      scale: 0.005,
      seed: 3,
      buildDate: '2026-11-01',
      window: { start: '2026-10-02T00:00:00.000Z', end: '2026-11-01T00:00:00.000Z' },
    });
    const transactions = manifest.stats.find(
      (entry: { fullName: string }) => entry.fullName === 'ethereum.transactions',
    );
    expect(transactions.timeRange.min >= manifest.window.start).toBe(true);
    expect(transactions.timeRange.max < manifest.window.end).toBe(true);
  });

  it('reuses the data on the next start and says when its window is behind today', async () => {
    logs.length = 0;
    const again = await ensureWarehouse({ dataDir, log });
    expect(again.generated).toBe(false);
    expect(again.manifest.buildDate).toBe('2026-11-01');
    expect(logs.join('\n')).toMatch(/ends 2026-11-01 \(built for 2026-11-01\).*Delete .*warehouse\.duckdb/);
  });

  it('rebuilds a warehouse made by an older version (VARCHAR addresses, fixed window), or for other settings', () => {
    const { format: _format, ...old } = built.manifest;
    const want = { scale: 0.005, seed: 3 };
    expect(rebuildReason(built.manifest, want, true)).toBeUndefined();
    expect(rebuildReason(old as WarehouseManifest, want, true)).toMatch(/older version/);
    expect(rebuildReason(built.manifest, { ...want, scale: 1 }, true)).toMatch(/scale 0.005, seed 3/);
    expect(rebuildReason(built.manifest, want, false)).toMatch(/No sample data/);
    expect(rebuildReason(undefined, want, true)).toMatch(/No sample data/);
  });
});
