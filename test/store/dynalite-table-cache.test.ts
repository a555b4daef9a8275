/**
 * dynalite's thread keeps active tables' descriptions in memory instead of reading them from
 * LevelDB before every item request. A table's description must never be served stale: any
 * table write (create, update, delete) empties the cache, a read that overlapped a write is not
 * kept, the table actions always read the store, and a table that is being created or deleted
 * is never kept.
 */
import { CreateTableCommand, DeleteTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import type { TableDefinitionSpec } from '../../functions/aws/dynamo/table-definitions';
import {
  createTableInput,
  ensureTables,
  type LocalDynamo,
  startDynalite,
} from '../../functions/local/dynalite';
import { withTableCache } from '../../functions/local/dynalite-table-cache';

type Table = { TableStatus: string; version: number };
type Callback = (error: unknown, table?: Table) => void;

/** A store whose table reads answer `tables` as they are when the read completes (a tick later). */
function fakeStore(tables: Map<string, Table>) {
  const reads: string[] = [];
  const store = {
    tableDb: {
      put: (name: string, table: Table) => void tables.set(name, table),
      del: (name: string) => void tables.delete(name),
    },
    getTable(name: string, checkStatus: boolean | Callback, callback?: Callback) {
      const done = (typeof checkStatus === 'function' ? checkStatus : callback)!;
      reads.push(name);
      setImmediate(() => {
        const table = tables.get(name);
        if (!table) return done(Object.assign(new Error('NotFoundError'), { name: 'NotFoundError' }));
        done(null, { ...table });
      });
    },
  };
  return { store: withTableCache(store as never) as unknown as typeof store, reads };
}

const read = (store: ReturnType<typeof fakeStore>['store'], name: string, checkStatus?: boolean) =>
  new Promise<Table | undefined>((resolve, reject) => {
    const done: Callback = (error, table) => (error ? reject(error) : resolve(table));
    if (checkStatus === undefined) store.getTable(name, done);
    else store.getTable(name, checkStatus, done);
  });

describe('the table-description cache of the dynalite thread', () => {
  it('reads an active table once, then answers from memory (asynchronously, as a store read)', async () => {
    const { store, reads } = fakeStore(new Map([['service', { TableStatus: 'ACTIVE', version: 1 }]]));
    expect(await read(store, 'service')).toEqual({ TableStatus: 'ACTIVE', version: 1 });
    let answered = false;
    const second = read(store, 'service').then((table) => {
      answered = true;
      return table;
    });
    expect(answered).toBe(false);
    expect(await second).toEqual({ TableStatus: 'ACTIVE', version: 1 });
    expect(await read(store, 'service', true)).toEqual({ TableStatus: 'ACTIVE', version: 1 });
    expect(reads).toEqual(['service']);
  });

  it('reads the store again after any table write, and for the table actions (no status check)', async () => {
    const tables = new Map([['service', { TableStatus: 'ACTIVE', version: 1 }]]);
    const { store, reads } = fakeStore(tables);
    await read(store, 'service');
    store.tableDb.put('service', { TableStatus: 'ACTIVE', version: 2 });
    expect(await read(store, 'service')).toMatchObject({ version: 2 });
    expect(await read(store, 'service', false)).toMatchObject({ version: 2 });
    store.tableDb.del('service');
    await expect(read(store, 'service')).rejects.toThrow('NotFoundError');
    expect(reads).toEqual(['service', 'service', 'service', 'service']);
  });

  it('keeps no description a table write overlapped, nor one of a table not active', async () => {
    const tables = new Map([['service', { TableStatus: 'ACTIVE', version: 1 }]]);
    const { store, reads } = fakeStore(tables);
    // The write lands while the read is on its way: what the read answers may predate it.
    const overlapped = read(store, 'service');
    store.tableDb.put('service', { TableStatus: 'DELETING', version: 2 });
    await overlapped;
    await read(store, 'service', false);
    tables.set('other', { TableStatus: 'CREATING', version: 1 });
    await read(store, 'other');
    await read(store, 'other');
    expect(reads).toEqual(['service', 'service', 'other', 'other']);
  });
});

describe('the table-description cache on a real dynalite thread', () => {
  let dynamo: LocalDynamo;
  let client: ReturnType<typeof localDynamoClient>;
  beforeAll(async () => {
    dynamo = await startDynalite();
    client = localDynamoClient(dynamo.endpoint, dynamo.requestHandler);
    await ensureTables(client.client);
  });
  afterAll(() => dynamo?.close());

  it('refuses item requests on a deleted table and serves a table created again', async () => {
    const definition = createTableInput(tableSpec());
    await client.client.send(new CreateTableCommand(definition));
    await ensureActive();
    const key = { pk: 'k', sk: 's' };
    await client.doc.send(new PutCommand({ TableName: 'scratch', Item: { ...key, n: 1 } }));
    expect((await client.doc.send(new GetCommand({ TableName: 'scratch', Key: key }))).Item).toMatchObject({
      n: 1,
    });
    await client.client.send(new DeleteTableCommand({ TableName: 'scratch' }));
    await expect(client.doc.send(new GetCommand({ TableName: 'scratch', Key: key }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await untilGone();
    await client.client.send(new CreateTableCommand(definition));
    await ensureActive();
    expect((await client.doc.send(new GetCommand({ TableName: 'scratch', Key: key }))).Item).toBeUndefined();
  });

  const tableSpec = (): TableDefinitionSpec => ({
    logicalId: 'ScratchTable',
    envVar: 'SCRATCH_TABLE_NAME',
    localName: 'scratch',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    globalSecondaryIndexes: [],
  });

  /** Item requests answer once the table is active (dynalite's creation delay is 0 here). */
  async function ensureActive() {
    for (let i = 0; i < 100; i++) {
      try {
        await client.doc.send(new GetCommand({ TableName: 'scratch', Key: { pk: '-', sk: '-' } }));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    throw new Error('scratch never became active');
  }

  async function untilGone() {
    for (let i = 0; i < 100; i++) {
      const listed = await client.client.send(new ListTablesCommand({}));
      if (!listed.TableNames?.includes('scratch')) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('scratch was never deleted');
  }
});
