import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishCatalogStats } from '../../functions/aws/catalog/catalog-stats';
import { DynamoCatalogStatsStore } from '../../functions/aws/dynamo/catalog-stats-store';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { CatalogService } from '../../functions/datasets/catalog-service';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';

let dynamo: LocalDynamo;
let store: DynamoCatalogStatsStore;

beforeAll(async () => {
  dynamo = await startDynalite();
  const { client, doc } = localDynamoClient(dynamo.endpoint);
  await ensureTables(client);
  store = new DynamoCatalogStatsStore(doc, SERVICE_TABLE.localName);
});

afterAll(async () => {
  await dynamo?.close();
});

describe('npm run load-data -- --aws publishes the catalog statistics (getTableSize in AWS)', () => {
  it('writes the statistics measured with the warehouse, which the catalog then serves', async () => {
    const published = await publishCatalogStats(inject('warehouseTemplateDir'), store);
    expect(published.length).toBeGreaterThan(10);
    const stored = await store.listStats();
    expect(stored.map((s) => s.fullName).sort()).toEqual(published.map((s) => s.fullName).sort());
    const transactions = stored.find((s) => s.fullName === 'ethereum.transactions')!;
    expect(transactions.rowCount).toBeGreaterThan(0);
    expect(transactions.sizeBytes).toBeGreaterThan(0);
    expect(Object.keys(transactions.columnBytes)).toContain('hash');
    // What getTableSize reads: the catalog entry of the table, now with its statistics.
    const entry = await new CatalogService(store, BASE_TABLES).get(undefined, 'ethereum.transactions');
    expect(entry.stats).toMatchObject({ rowCount: transactions.rowCount, sizeBytes: transactions.sizeBytes });
  });

  it('refuses a data directory without a built warehouse, saying how to build one', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'no-warehouse-'));
    try {
      await expect(publishCatalogStats(empty, store)).rejects.toThrow('npm start');
      await writeFile(join(empty, 'warehouse.json'), '{"stats": []}');
      await expect(publishCatalogStats(empty, store)).rejects.toThrow('no table statistics');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
