import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-glue';
import { CreateMultipartUploadCommand, DeleteObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { Dialect, transpile } from '@polyglot-sql/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GlueViewVersions, viewVersionTable } from '../../functions/aws/catalog/view-versions';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import type { ResultColumn } from '../../functions/core/engine';
import { translate } from '../../functions/dunesql';
import { mockGlueTables } from '../support/glue-tables';
import { mockS3Objects } from '../support/s3-objects';
import { writeResultFiles } from './athena-result-files';

const VIEWS_DB = 'svc_views';
const DATA_BUCKET = 'svc-data';
const VIEW = 'mv.alice.result_flows';
const ID = '01HKZJ2683PHF9Q9PHHQ8FW4Q1';
const RETIRE_AFTER_MS = 40 * 60_000;
/** Athena's column types for the refresh result, as GetQueryResults reports them. */
const COLUMNS: ResultColumn[] = [
  { name: 'i', type: 'bigint' },
  { name: 'amount_raw', type: 'decimal(38,0)' },
  { name: 'block_time', type: 'timestamp' },
  { name: 'price', type: 'double' },
  { name: 'ok', type: 'boolean' },
  { name: 'day', type: 'date' },
  { name: 'data', type: 'varbinary' },
  { name: 'label', type: 'varchar' },
];
/** Every awkward value: NULL next to '', quotes, commas, line breaks, binary, 38-digit integers. */
const SQL = `
  SELECT range AS i,
         CASE WHEN range % 7 = 0 THEN NULL ELSE range::DECIMAL(38,0) * 100000000000000000000000000000 END AS amount_raw,
         TIMESTAMP '2024-01-01 00:00:00.123' + INTERVAL (range * 7) SECOND AS block_time,
         range / 8.0 AS price,
         range % 2 = 0 AS ok,
         DATE '2024-02-29' + range::INTEGER AS day,
         CASE WHEN range % 4 = 0 THEN NULL ELSE from_hex(printf('%08x', range)) END AS data,
         CASE range % 5 WHEN 0 THEN 'a,b "q"' WHEN 1 THEN '' WHEN 2 THEN 'line' || chr(10) || 'break' WHEN 3 THEN 'ünï ✓' ELSE NULL END AS label
  FROM range(3000)
  ORDER BY (range * 7919) % 3000`;

const s3 = mockS3Objects();
let now = new Date('2026-11-24T12:00:00Z');
const glue = mockGlueTables(() => now);
let dir: string;
let results: S3ResultStore;
let versions: GlueViewVersions;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'view-versions-'));
  const { csvPath } = await writeResultFiles({ dir, executionId: ID, sql: SQL, columns: COLUMNS });
  await s3.putFile('svc-results', `athena/medium/${ID}.csv`, csvPath);
  results = new S3ResultStore(s3.client, { bucket: 'svc-results' });
  await results.register(ID, { bucket: 'svc-results', key: `athena/medium/${ID}.csv` }, COLUMNS);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  glue.tables.clear();
  glue.mock.resetHistory();
  s3.mock.resetHistory();
  s3.setChunkBytes(4096); // records split across chunks
  versions = new GlueViewVersions(glue.client, s3.client, results, {
    database: VIEWS_DB,
    bucket: DATA_BUCKET,
    retireAfterMs: RETIRE_AFTER_MS,
  });
});

const rowsKey = (executionId: string) => `views/${viewVersionTable(VIEW, executionId)}/rows.json.gz`;

describe('materialized view versions on Athena (Glue table + gzip JSON lines)', () => {
  it('writes the refresh result as one JSON object per row and a Glue table over its own prefix', async () => {
    await versions.prepare(VIEW, { executionId: ID, columns: COLUMNS });

    const table = viewVersionTable(VIEW, ID);
    expect(table).toMatch(/^v_[0-9a-f]{16}_01hkzj2683phf9q9phhq8fw4q1$/);
    const lines = gunzipSync(s3.bytes(DATA_BUCKET, rowsKey(ID))!)
      .toString('utf8')
      .split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3000);
    const rows = lines.map((line) => JSON.parse(line) as Record<string, string | null>);
    // Stored order kept; NULL and '' stay apart; line breaks are escaped inside one line.
    const page = await results.readPage({ executionId: ID, limit: 3000, offset: 0 });
    expect(rows.map((row) => row.c0)).toEqual(page.rows.map((row) => String(row.i)));
    const label = (i: number) => rows.find((row) => Number(row.c0) === i)!.c7;
    expect([label(0), label(1), label(2), label(3), label(4)]).toEqual([
      'a,b "q"',
      '',
      'line\nbreak',
      'ünï ✓',
      null,
    ]);
    expect(rows.find((row) => row.c0 === '7')!.c1).toBeNull();
    expect(rows.find((row) => row.c0 === '1')!).toMatchObject({
      c1: '100000000000000000000000000000',
      c6: '00 00 00 01',
    });

    const created = glue.mock.commandCalls(CreateTableCommand)[0]!.args[0].input;
    expect(created.DatabaseName).toBe(VIEWS_DB);
    expect(created.TableInput).toMatchObject({
      Name: table,
      TableType: 'EXTERNAL_TABLE',
      Parameters: { classification: 'json', materialized_view: VIEW, execution_id: ID },
      StorageDescriptor: {
        Location: `s3://${DATA_BUCKET}/views/${table}/`,
        InputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
        SerdeInfo: { SerializationLibrary: 'org.apache.hive.hcatalog.data.JsonSerDe' },
      },
    });
    expect(created.TableInput!.StorageDescriptor!.Columns).toEqual(
      COLUMNS.map((column, i) => ({
        Name: `c${i}`,
        Type: 'string',
        Comment: `${column.name} ${column.type}`,
      })),
    );
  });

  it('reads back through the translated view reference as exactly the rows the refresh returned', async () => {
    await versions.prepare(VIEW, { executionId: ID, columns: COLUMNS });
    const gz = join(dir, 'rows.json.gz');
    await writeFile(gz, s3.bytes(DATA_BUCKET, rowsKey(ID))!);
    const athenaSql = (
      await translate('SELECT * FROM mv.alice.result_flows', 'athena', {
        relations: [
          {
            catalog: 'mv',
            schema: 'alice',
            name: 'result_flows',
            columns: COLUMNS,
            table: { database: VIEWS_DB, name: viewVersionTable(VIEW, ID) },
          },
        ],
      })
    ).sql;
    // DuckDB stands in for Athena: the same table (every column text, read from the gzip JSON
    // lines) and the same Trino SQL, transpiled.
    const duckSql = transpile(athenaSql, Dialect.Trino, Dialect.DuckDB).sql![0]!;
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const textColumns = COLUMNS.map((_, i) => `c${i}: 'VARCHAR'`).join(', ');
      await connection.run(`CREATE SCHEMA ${VIEWS_DB}`);
      await connection.run(
        `CREATE VIEW ${VIEWS_DB}.${viewVersionTable(VIEW, ID)} AS SELECT * FROM read_json('${gz}', format = 'newline_delimited', columns = {${textColumns}})`,
      );
      await connection.run(`CREATE TABLE original AS ${SQL}`);
      await connection.run(`CREATE TABLE through_view AS ${duckSql}`);
      const count = async (sql: string) => (await connection.runAndReadAll(sql)).getRows()[0]![0];
      expect(await count('SELECT count(*) FROM through_view')).toBe(3000n);
      expect(
        await count('SELECT count(*) FROM (SELECT * FROM original EXCEPT ALL SELECT * FROM through_view)'),
      ).toBe(0n);
      expect(
        await count('SELECT count(*) FROM (SELECT * FROM through_view EXCEPT ALL SELECT * FROM original)'),
      ).toBe(0n);
      const types = (await connection.runAndReadAll('DESCRIBE through_view')).getRows().map((row) => row[1]);
      // timestamp(3) is DuckDB's TIMESTAMP_MS.
      expect(types).toEqual([
        'BIGINT',
        'DECIMAL(38,0)',
        'TIMESTAMP_MS',
        'DOUBLE',
        'BOOLEAN',
        'DATE',
        'BLOB',
        'VARCHAR',
      ]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('prepares the same version twice without failing (a retried completion)', async () => {
    await versions.prepare(VIEW, { executionId: ID, columns: COLUMNS });
    await versions.prepare(VIEW, { executionId: ID, columns: COLUMNS });
    expect(glue.names(VIEWS_DB)).toEqual([viewVersionTable(VIEW, ID)]);
  });

  it('leaves no table behind when the rows cannot be written', async () => {
    await expect(
      versions.prepare(VIEW, { executionId: '01HKZJ2683PHF9Q9PHHQ8FW4ZZ', columns: COLUMNS }),
    ).rejects.toThrow(/No stored result/);
    expect(glue.names(VIEWS_DB)).toEqual([]);
  });

  it('streams a result larger than one upload part as a multipart upload, rows in order', async () => {
    const id = '01HKZJ2683PHF9Q9PHHQ8FW4Q2';
    const columns: ResultColumn[] = [
      { name: 'i', type: 'bigint' },
      { name: 'h', type: 'varchar' },
    ];
    const rows = 120_000;
    const { csvPath } = await writeResultFiles({
      dir,
      executionId: id,
      sql: `SELECT range AS i, md5(range::VARCHAR) || md5((range * 7)::VARCHAR) || md5((range * 13)::VARCHAR) AS h FROM range(${rows}) ORDER BY range DESC`,
      columns,
    });
    await s3.putFile('svc-results', `athena/medium/${id}.csv`, csvPath);
    await results.register(id, { bucket: 'svc-results', key: `athena/medium/${id}.csv` }, columns);
    s3.setChunkBytes(1 << 20);
    await versions.prepare(VIEW, { executionId: id, columns });
    expect(s3.mock.commandCalls(UploadPartCommand).length).toBeGreaterThan(1);
    expect(s3.openUploads()).toBe(0);
    const lines = gunzipSync(s3.bytes(DATA_BUCKET, rowsKey(id))!)
      .toString('utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(rows);
    expect(JSON.parse(lines[0]!).c0).toBe(String(rows - 1));
    expect(JSON.parse(lines.at(-1)!).c0).toBe('0');
  });

  it('aborts the upload and creates no table when reading the rows fails midway', async () => {
    const failing = new GlueViewVersions(
      glue.client,
      s3.client,
      {
        async *records() {
          // Incompressible rows, so the gzip output passes a 5 MiB part before the failure.
          for (let i = 0; i < 3; i++) yield [[String(i), randomBytes(6 << 20).toString('base64')]];
          throw new Error('S3 read reset');
        },
      },
      { database: VIEWS_DB, bucket: DATA_BUCKET, retireAfterMs: RETIRE_AFTER_MS },
    );
    const id = '01HKZJ2683PHF9Q9PHHQ8FW4Q3';
    await expect(failing.prepare(VIEW, { executionId: id, columns: COLUMNS.slice(0, 2) })).rejects.toThrow(
      'S3 read reset',
    );
    expect(s3.mock.commandCalls(CreateMultipartUploadCommand)).toHaveLength(1); // it was multipart
    expect(s3.openUploads()).toBe(0);
    expect(glue.names(VIEWS_DB)).toEqual([]);
    expect(s3.has(DATA_BUCKET, rowsKey(id))).toBe(false);
  });

  it('drops superseded versions only once no run can still read them, and keeps the current one', async () => {
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    const ids = ['01HKZJ0000000000000000000A', '01HKZJ0000000000000000000B', '01HKZJ0000000000000000000C'];
    const [older, previous, current] = ids.map((id) => viewVersionTable(VIEW, id));
    glue.add(VIEWS_DB, older!, minutesAgo(300));
    glue.add(VIEWS_DB, previous!, minutesAgo(100)); // superseded when `current` was created
    glue.add(VIEWS_DB, current!, minutesAgo(10));
    const lost = viewVersionTable(VIEW, '01HKZJ0000000000000000000D'); // newer, never published
    glue.add(VIEWS_DB, lost, minutesAgo(5));
    const otherView = viewVersionTable('mv.bob.result_flows', ids[0]!);
    glue.add(VIEWS_DB, otherView, minutesAgo(1000));

    await versions.retire(VIEW, ids[2], now);
    // `older` was superseded 100 minutes ago; `previous` only 10 (a run may still read it).
    expect(glue.names(VIEWS_DB).sort()).toEqual([previous, current, lost, otherView].sort());
    expect(s3.mock.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key)).toEqual([
      `views/${older}/rows.json.gz`,
    ]);

    now = new Date(now.getTime() + 45 * 60_000);
    await versions.retire(VIEW, ids[2], now);
    expect(glue.names(VIEWS_DB).sort()).toEqual([current, otherView].sort());
  });

  it('drops every version of a deleted view, and no other view’s', async () => {
    glue.add(VIEWS_DB, viewVersionTable(VIEW, '01HKZJ0000000000000000000A'), now);
    glue.add(VIEWS_DB, viewVersionTable(VIEW, '01HKZJ0000000000000000000B'), now);
    glue.add(VIEWS_DB, viewVersionTable(VIEW, '01HKZJ0000000000000000000C'), now);
    const otherView = viewVersionTable('mv.alice.result_other', '01HKZJ0000000000000000000A');
    glue.add(VIEWS_DB, otherView, now);
    await versions.drop(VIEW);
    expect(glue.names(VIEWS_DB)).toEqual([otherView]);
    expect(glue.mock.commandCalls(DeleteTableCommand)).toHaveLength(3);
  });
});
