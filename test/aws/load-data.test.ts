import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadData } from '../../functions/aws/catalog/load-data';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { mockS3Objects } from '../support/s3-objects';

const s3 = mockS3Objects();
const warehousePath = join(inject('warehouseTemplateDir'), 'warehouse.duckdb');
const TABLES = ['ethereum.transactions', 'tokens.erc20'].map(
  (name) => BASE_TABLES.find((table) => table.fullName === name)!,
);

let uploads: { Key: string; Body: Buffer }[];

beforeAll(async () => {
  await loadData({ warehousePath, s3: s3.client, bucket: 'svc-data', tables: TABLES });
  uploads = s3.mock
    .commandCalls(PutObjectCommand)
    .map((call) => call.args[0].input as { Key: string; Body: Buffer });
});

afterAll(() => s3.reset());

async function localCount(sql: string): Promise<number> {
  const instance = await DuckDBInstance.create(warehousePath, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll(sql)).getRows();
    connection.closeSync();
    return Number(rows[0]![0]);
  } finally {
    instance.closeSync();
  }
}

const toArrayBuffer = (body: Buffer) =>
  body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;

describe('npm run load-data -- --aws', () => {
  it('uploads one Parquet file per date partition under the catalog layout', async () => {
    const transactions = uploads.filter((upload) => upload.Key.startsWith('tables/ethereum/transactions/'));
    expect(transactions.length).toBe(
      await localCount('SELECT count(DISTINCT block_date) FROM ethereum.transactions'),
    );
    for (const upload of transactions) {
      expect(upload.Key).toMatch(
        /^tables\/ethereum\/transactions\/block_date=\d{4}-\d{2}-\d{2}\/[\w-]+\.parquet$/,
      );
    }
    expect(
      uploads.filter((upload) => upload.Key.startsWith('tables/tokens/erc20/')).map((u) => u.Key),
    ).toEqual(['tables/tokens/erc20/data_0.parquet']);
  });

  it('writes files Athena reads as the Glue table declares: no partition column, uint256 as decimal(38,0)', async () => {
    const upload = uploads.find((candidate) => candidate.Key.startsWith('tables/ethereum/transactions/'))!;
    const file = toArrayBuffer(upload.Body);
    const metadata = parquetMetadata(file);
    const columns = parquetSchema(metadata).children.map((child) => child.element);
    expect(columns.map((column) => column.name)).not.toContain('block_date');
    const value = columns.find((column) => column.name === 'value')!;
    expect(value).toMatchObject({ precision: 38, scale: 0 });
    expect(columns.find((column) => column.name === 'hash')?.type).toBe('BYTE_ARRAY');
    const rows = await parquetReadObjects({ file, columns: ['block_number', 'value'], rowEnd: 1 });
    expect(rows[0]).toHaveProperty('block_number');
    let total = 0;
    for (const each of uploads.filter((candidate) =>
      candidate.Key.startsWith('tables/ethereum/transactions/'),
    )) {
      total += Number(parquetMetadata(toArrayBuffer(each.Body)).num_rows);
    }
    expect(total).toBe(await localCount('SELECT count(*) FROM ethereum.transactions'));
  });
});
