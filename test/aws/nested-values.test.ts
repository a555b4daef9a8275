import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Dialect, transpile } from '@polyglot-sql/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import type { ResultColumn } from '../../functions/core/engine';
import { duckDbTypeOf, duneSqlTypeName } from '../../functions/core/sql-types';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { sessionMacrosFor, translate } from '../../functions/dunesql';
import { DuckDbResultStore } from '../../functions/local/engine/result-store';
import { mockS3Objects } from '../support/s3-objects';
import { writeResultFiles } from './athena-result-files';

/**
 * Arrays, maps and rows on Athena come back as the local host returns them. DuckDB stands in for
 * Athena: it runs the Athena translation (transpiled from Trino), with the few Trino functions
 * DuckDB lacks spelled as DuckDB's own (list below), writes the CSV Athena would, and the S3 result
 * store pages it; the local store pages the same SQL run the local way, over the same rows.
 */
const TABLES = athenaTableSchemas(BASE_TABLES);
const transactions = BASE_TABLES.find((table) => table.fullName === 'bitcoin.transactions')!;
const typeOf = (name: string) => transactions.columns.find((column) => column.name === name)!.type;

/** Trino functions DuckDB lacks → DuckDB's equivalents (test stand-in only). */
function asDuckDb(trino: string): string {
  return transpile(trino, Dialect.Trino, Dialect.DuckDB)
    .sql![0]!.replace(/\bTRANSFORM\(/g, 'list_transform(')
    .replace(/\bJSON_PARSE\(/g, 'json(')
    .replace(/\bZIP\(/g, 'list_zip(')
    .replace(
      /FORMAT_DATETIME\(([^,]+), 'yyyy-MM-dd HH:mm:ss\.SSS'\)/g,
      "strftime($1, '%Y-%m-%d %H:%M:%S.%g')",
    );
}

/** 200 transactions with every awkward nested value: NULL and empty arrays, NULL elements and fields. */
const DATA = `
  SELECT unhex(printf('%064x', i)) AS id,
         TIMESTAMP '2024-01-01 00:00:00.125' + INTERVAL (i * 37) SECOND AS block_time,
         DATE '2024-01-01' + (i % 5)::INTEGER AS block_date,
         CAST(CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN [] ELSE [
           {'index': 0, 'spent_tx_id': unhex(printf('%08x', i)), 'spent_output_number': i * 3,
            'value': i / 8, 'type': 'p2wpkh',
            'address': CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 'bc1"q,' WHEN 2 THEN '' ELSE 'line' || chr(10) || 'break ✓' END},
           CASE WHEN i % 3 = 0 THEN NULL ELSE {'index': 1, 'spent_tx_id': NULL, 'spent_output_number': NULL,
             'value': 12345678.12345678, 'type': NULL, 'address': 'x'} END
         ] END AS ${duckDbTypeOf(typeOf('inputs'))}) AS inputs,
         CAST([{'index': 0, 'value': i / 3, 'address': 'a' || i, 'type': 'p2tr'}] AS ${duckDbTypeOf(typeOf('outputs'))}) AS outputs
  FROM range(200) AS t(i)`;

const s3 = mockS3Objects();
let dir: string;
let warehouse: DuckDBInstance;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nested-values-'));
  warehouse = await DuckDBInstance.create(':memory:');
  const connection = await warehouse.connect();
  await connection.run(`CREATE SCHEMA bitcoin; CREATE TABLE bitcoin.transactions AS ${DATA}`);
  connection.closeSync();
});

afterAll(async () => {
  warehouse?.closeSync();
  await rm(dir, { recursive: true, force: true });
});

/** A DuckDB SELECT reading the warehouse's table, for writeResultFiles (its own in-memory DB). */
const overWarehouse = (sql: string) => sql.replaceAll('bitcoin.transactions', `(${DATA})`);

/**
 * Runs the SQL both ways and returns both stores' first page plus the Athena run's translation:
 * `athenaColumns` are the column types GetQueryResults reports (nested JSON columns as varchar).
 */
async function bothHosts(name: string, sql: string, athenaColumns: ResultColumn[]) {
  const athena = await translate(sql, 'athena', { tables: TABLES });
  const athenaFiles = await writeResultFiles({
    dir: join(dir, 'athena'),
    executionId: name,
    sql: overWarehouse(asDuckDb(athena.sql)),
    columns: athenaColumns,
  });
  await s3.putFile('svc-athena', `athena/${name}.csv`, athenaFiles.csvPath);
  // What the engine's status does: the nested columns get their types back.
  const columns = athenaColumns.map((column, i) => {
    const nested = athena.nestedColumns.find((n) => n.position === i);
    return nested ? { ...column, type: nested.type } : column;
  });
  const store = new S3ResultStore(s3.client, { bucket: 'svc-results' });
  await store.register(name, { bucket: 'svc-athena', key: `athena/${name}.csv` }, columns);
  const local = await translate(sql, 'duckdb');
  const localDir = join(dir, 'local');
  await writeResultFiles({
    dir: localDir,
    executionId: name,
    sql: overWarehouse(local.sql),
    // The helper macros the translation calls (not its session settings: the Athena stand-in
    // runs without them too).
    setup: sessionMacrosFor(local.sql),
    columns: athenaColumns,
  });
  const localStore = new DuckDbResultStore({ resultsDir: localDir });
  try {
    const request = { executionId: name, limit: 1000, offset: 0 };
    const [aws, duck] = await Promise.all([store.readPage(request), localStore.readPage(request)]);
    return { aws, duck, athena };
  } finally {
    await localStore.close();
  }
}

describe('arrays, maps and rows on Athena', () => {
  it('returns array(row(...)) columns (varbinary, decimals, NULLs inside) as the local host does', async () => {
    const { aws, duck, athena } = await bothHosts(
      'rows',
      `SELECT id, block_time, inputs, outputs, transform(inputs, i -> i.spent_tx_id) AS spent
       FROM bitcoin.transactions ORDER BY block_time`,
      [
        { name: 'id', type: 'varbinary' },
        { name: 'block_time', type: 'timestamp' },
        { name: 'inputs', type: 'varchar' },
        { name: 'outputs', type: 'varchar' },
        { name: 'spent', type: 'varchar' },
      ],
    );
    expect(athena.nestedColumns).toEqual([
      {
        position: 2,
        type: 'array(row(index integer, spent_tx_id varbinary, spent_output_number bigint, value decimal(18,8), address varchar, type varchar))',
      },
      { position: 3, type: 'array(row(index integer, value decimal(18,8), address varchar, type varchar))' },
      { position: 4, type: 'array(varbinary)' },
    ]);
    expect(aws.rows).toHaveLength(200);
    expect(aws.rows).toEqual(duck.rows);
    // The API names types as Trino does (the local store reports DuckDB's names).
    expect(aws.columns.map((c) => c.type)).toEqual(
      duck.columns.map((c) => duneSqlTypeName(c.type).replace('timestamp(3)', 'timestamp')),
    );
    // NULL array, empty array, NULL element, NULL fields, quotes, commas and line breaks in strings.
    const inputs = aws.rows.map((row) => row.inputs);
    expect(inputs).toContain(null);
    expect(inputs).toContainEqual([]);
    expect(aws.rows[1]!.inputs).toEqual([
      {
        index: 0,
        spent_tx_id: '0x00000001',
        spent_output_number: 3,
        value: 0.125,
        address: 'bc1"q,',
        type: 'p2wpkh',
      },
      {
        index: 1,
        spent_tx_id: null,
        spent_output_number: null,
        value: 12345678.12345678,
        address: 'x',
        type: null,
      },
    ]);
  });

  it('returns arrays built by array_agg, ARRAY[...] and split as the local host does', async () => {
    const { aws, duck, athena } = await bothHosts(
      'built',
      `SELECT block_date,
              array_agg(id ORDER BY block_time) AS ids,
              array_agg(block_time ORDER BY block_time) AS times,
              array_agg(block_date ORDER BY block_time) AS days,
              ARRAY[1, 2] AS pair,
              split('a,b,"c"', ',') AS parts,
              array_agg(block_time + INTERVAL '1' DAY ORDER BY block_time) AS next_days,
              array_agg(cardinality(outputs) * 2 ORDER BY block_time) AS twice
       FROM bitcoin.transactions GROUP BY block_date ORDER BY block_date`,
      [
        { name: 'block_date', type: 'date' },
        ...['ids', 'times', 'days', 'pair', 'parts', 'next_days', 'twice'].map((name) => ({
          name,
          type: 'varchar',
        })),
      ],
    );
    expect(athena.nestedColumns.map((n) => n.type)).toEqual([
      'array(varbinary)',
      'array(timestamp)',
      'array(date)',
      'array(integer)',
      'array(varchar)',
      'array(timestamp)',
      'array(bigint)',
    ]);
    expect(aws.rows).toEqual(duck.rows);
    expect(aws.rows[0]!.times).toContain('2024-01-01 00:00:00.125 UTC');
    expect(aws.rows[0]!.parts).toEqual(['a', 'b', '"c"']);
  });

  it('returns the nested outputs of a set operation as the local host does, in its order', async () => {
    const { aws, duck, athena } = await bothHosts(
      'union',
      `SELECT block_time, outputs FROM bitcoin.transactions WHERE block_date = DATE '2024-01-02'
       UNION ALL
       SELECT block_time, outputs FROM bitcoin.transactions WHERE block_date = DATE '2024-01-03'
       ORDER BY block_time DESC LIMIT 50`,
      [
        { name: 'block_time', type: 'timestamp' },
        { name: 'outputs', type: 'varchar' },
      ],
    );
    expect(athena.nestedColumns.map((n) => n.position)).toEqual([1]);
    expect(aws.rows).toHaveLength(50);
    expect(aws.rows).toEqual(duck.rows);
  });

  it('returns unnamed rows (zip, ROW) keyed field0, field1, … as the local host does', async () => {
    const { aws, duck, athena } = await bothHosts(
      'unnamed',
      `SELECT id, zip(transform(outputs, o -> o.index), transform(outputs, o -> o.address)) AS pairs,
              ROW(block_date, ARRAY[id, NULL]) AS r
       FROM bitcoin.transactions ORDER BY block_time`,
      [
        { name: 'id', type: 'varbinary' },
        { name: 'pairs', type: 'varchar' },
        { name: 'r', type: 'varchar' },
      ],
    );
    expect(athena.nestedColumns.map((n) => n.type)).toEqual([
      'array(row(integer, varchar))',
      'row(date, array(varbinary))',
    ]);
    expect(aws.rows).toHaveLength(200);
    expect(aws.rows).toEqual(duck.rows);
    expect(aws.columns.map((c) => c.type)).toEqual([
      'varbinary',
      'array(row(integer, varchar))',
      'row(date, array(varbinary))',
    ]);
    expect(aws.rows[5]!.pairs).toEqual([{ field0: 0, field1: 'a5' }]);
    expect(aws.rows[5]!.r).toEqual({ field0: '2024-01-01', field1: [aws.rows[5]!.id, null] });
  });

  it('sorts on nested values and unnests nested columns as the local host does', async () => {
    const sorted = await bothHosts(
      'sorted',
      `SELECT id, outputs, transform(inputs, i -> i.value) AS inputs FROM bitcoin.transactions
       ORDER BY cardinality(inputs) DESC, block_time LIMIT 40`,
      [
        { name: 'id', type: 'varbinary' },
        { name: 'outputs', type: 'varchar' },
        { name: 'inputs', type: 'varchar' },
      ],
    );
    expect(sorted.athena.nestedColumns.map((n) => n.position)).toEqual([1, 2]);
    expect(sorted.aws.rows).toHaveLength(40);
    expect(sorted.aws.rows).toEqual(sorted.duck.rows);
    const unnested = await bothHosts(
      'unnested',
      `SELECT t.id, u.o, u.n FROM bitcoin.transactions AS t
       CROSS JOIN UNNEST(ARRAY[outputs, outputs]) WITH ORDINALITY AS u(o, n) ORDER BY t.block_time, u.n`,
      [
        { name: 'id', type: 'varbinary' },
        { name: 'o', type: 'varchar' },
        { name: 'n', type: 'bigint' },
      ],
    );
    expect(unnested.athena.nestedColumns).toEqual([
      { position: 1, type: 'array(row(index integer, value decimal(18,8), address varchar, type varchar))' },
    ]);
    expect(unnested.aws.rows).toHaveLength(400);
    expect(unnested.aws.rows).toEqual(unnested.duck.rows);
  });

  it('returns the nested columns of CTEs and subqueries, and a star over them, as the local host does', async () => {
    const { aws, duck, athena } = await bothHosts(
      'ctes',
      `WITH daily AS (
         SELECT block_date, array_agg(id ORDER BY block_time) AS ids, max_by(outputs, block_time) AS last_outputs
         FROM bitcoin.transactions GROUP BY block_date
       )
       SELECT d.*, s.values FROM daily AS d
       JOIN (SELECT block_date, array_agg(cardinality(inputs) ORDER BY block_time) AS values
             FROM bitcoin.transactions GROUP BY 1) AS s ON s.block_date = d.block_date
       ORDER BY d.block_date`,
      [
        { name: 'block_date', type: 'date' },
        { name: 'ids', type: 'varchar' },
        { name: 'last_outputs', type: 'varchar' },
        { name: 'values', type: 'varchar' },
      ],
    );
    expect(athena.nestedColumns.map((n) => `${n.position}: ${n.type}`)).toEqual([
      '1: array(varbinary)',
      '2: array(row(index integer, value decimal(18,8), address varchar, type varchar))',
      '3: array(bigint)',
    ]);
    expect(aws.rows).toHaveLength(5);
    expect(aws.rows).toEqual(duck.rows);
  });

  it('reads a view back with its nested types, and returns them as JSON again', async () => {
    const columns = [
      { name: 'id', type: 'varbinary' },
      { name: 'inputs', type: typeOf('inputs') },
    ];
    // The view's stored version: the refresh's result CSV, every column text (c0, c1).
    const refresh = await translate('SELECT id, inputs FROM bitcoin.transactions', 'athena', {
      tables: TABLES,
    });
    const version = await writeResultFiles({
      dir: join(dir, 'view'),
      executionId: 'version',
      sql: overWarehouse(asDuckDb(refresh.sql)),
      columns: [
        { name: 'id', type: 'varbinary' },
        { name: 'inputs', type: 'varchar' },
      ],
    });
    const reader = await translate(
      'SELECT v.id, v.inputs, cardinality(v.inputs) AS n FROM mv.alice.result_x AS v',
      'athena',
      {
        tables: TABLES,
        relationCatalogs: { mv: 'materialized view' },
        relations: [
          {
            catalog: 'mv',
            schema: 'alice',
            name: 'result_x',
            columns,
            table: { database: 'views', name: 'version' },
          },
        ],
      },
    );
    expect(reader.nestedColumns).toEqual([{ position: 1, type: columns[1]!.type.replace(/\s+/g, ' ') }]);
    const connection = await warehouse.connect();
    try {
      await connection.run(
        `CREATE SCHEMA views; CREATE VIEW views.version AS SELECT * FROM read_csv('${version.csvPath}', header = true, all_varchar = true, names = ['c0', 'c1'])`,
      );
      // The view's rows, typed again, are exactly the original rows.
      const typed = asDuckDb(reader.sql).replace(/^SELECT .*? FROM \(SELECT/s, 'SELECT * FROM (SELECT');
      const differing = async (a: string, b: string) =>
        (await connection.runAndReadAll(`SELECT count(*) FROM (${a} EXCEPT ALL ${b})`)).getRows()[0]![0];
      const original = 'SELECT inputs FROM bitcoin.transactions';
      const throughView = `SELECT inputs FROM (${typed}) AS t`;
      expect(await differing(original, throughView)).toBe(0n);
      expect(await differing(throughView, original)).toBe(0n);
      expect((await connection.runAndReadAll(`SELECT count(*) FROM (${typed}) AS t`)).getRows()[0]![0]).toBe(
        200n,
      );
    } finally {
      connection.closeSync();
    }
  });
});
