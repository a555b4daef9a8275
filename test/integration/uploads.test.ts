import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ColumnType, ContentType, DuneClient } from '@duneanalytics/client-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { uploadGenerationDirectory } from '../../functions/local/engine/result-files';
import { dropRetiredUploadGenerations, retiredGenerationLifetimeMs } from '../../functions/uploads/use-cases';
import { fetchPointedAt } from '../support/dune-sdk';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

/**
 * Uploaded tables (Dune's /v1/uploads) through the official Dune SDK's `uploads` client, and read
 * back by SQL as `dune.<namespace>.<table>` with every column type.
 */
describe('uploaded tables', () => {
  let host: TestHost;
  let alice: DuneClient;
  let aliceKey: string;
  let bobKey: string;
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    host = await startTestHost();
    aliceKey = await newAccountKey(host, 'alice');
    bobKey = await newAccountKey(host, 'bob');
    vi.stubGlobal('fetch', fetchPointedAt(host.baseUrl, realFetch));
    alice = new DuneClient(aliceKey);
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await host?.stop();
  });

  /** Runs SQL as an account; the finished status, and the rows when it completed. */
  async function runSql(sql: string, apiKey = aliceKey): Promise<{ status: Json; rows: Json[] }> {
    const started = await bodyOf(await host.call('/v1/sql/execute', { apiKey, json: { sql } }));
    expect(started.execution_id, JSON.stringify(started)).toBeTruthy();
    const status = await waitUntilFinished(host, started.execution_id, 20_000, apiKey);
    if (status.state !== 'QUERY_STATE_COMPLETED') return { status, rows: [] };
    const results = await bodyOf(
      await host.call(`/v1/execution/${started.execution_id}/results`, { apiKey }),
    );
    return { status, rows: results.result.rows };
  }

  /** Appends CSV rows to one of Alice's tables through the Dune SDK. */
  const insertCsv = (table: string, csv: string) =>
    alice.uploads.insert({
      namespace: 'alice',
      table_name: table,
      data: Buffer.from(csv),
      content_type: ContentType.Csv,
    });

  /** A raw insert request into one of Alice's tables (any key, content type and headers). */
  const postRows = (
    table: string,
    body: string,
    options: { apiKey?: string; contentType?: string; headers?: Record<string, string> } = {},
  ) =>
    host.call(`/v1/uploads/alice/${table}/insert`, {
      apiKey: options.apiKey ?? aliceKey,
      method: 'POST',
      headers: { 'content-type': options.contentType ?? 'text/csv', ...options.headers },
      body,
    });

  const TYPED_SCHEMA = [
    { name: 'label', type: ColumnType.Varchar },
    { name: 'address', type: ColumnType.Varbinary },
    { name: 'amount', type: ColumnType.Uint256 },
    { name: 'delta', type: ColumnType.Int256 },
    { name: 'block_number', type: ColumnType.Bigint },
    { name: 'tx_index', type: ColumnType.Integer },
    { name: 'price', type: ColumnType.Double },
    { name: 'active', type: ColumnType.Boolean },
    { name: 'seen_at', type: ColumnType.Timestamp },
    { name: 'day', type: ColumnType.Date, nullable: true },
  ];

  it('creates a table with the SDK, inserts CSV and NDJSON, and SQL reads every type back', async () => {
    const created = await alice.uploads.create({
      namespace: 'alice',
      table_name: 'typed_rows',
      description: 'every column type',
      schema: TYPED_SCHEMA,
      is_private: true,
    });
    expect(created).toMatchObject({
      namespace: 'alice',
      table_name: 'typed_rows',
      full_name: 'dune.alice.typed_rows',
      already_existed: false,
    });
    // Creating it again with the same columns answers the same table.
    const again = await alice.uploads.create({
      namespace: 'alice',
      table_name: 'typed_rows',
      schema: TYPED_SCHEMA,
    });
    expect(again).toMatchObject({ already_existed: true });

    const csv = [
      // Columns in another order than the schema; `day` left out (nullable).
      'amount,label,address,delta,block_number,tx_index,price,active,seen_at',
      '99999999999999999999999999999999999999,"Uni, V3",0xC02AAA39B223FE8D0A0E5C4F27EAD9083C756CC2,-42,19000000,7,1.5,true,2024-01-31T12:00:00+02:00',
      '0,"",0x,0,1,0,-0.25,FALSE,2024-02-01 00:00:00.123',
    ].join('\n');
    const inserted = await insertCsv('typed_rows', csv);
    expect(inserted).toMatchObject({ rows_written: 2, name: 'dune.alice.typed_rows' });
    expect((inserted as Json).bytes_written).toBeGreaterThan(0);
    const ndjson = `${JSON.stringify({ label: 'json', address: '0xab', amount: '12', delta: -1, block_number: 5, tx_index: 1, price: 2, active: false, seen_at: '2024-03-01', day: '2024-03-01' })}\n`;
    const more = await alice.uploads.insert({
      namespace: 'alice',
      table_name: 'typed_rows',
      data: Buffer.from(ndjson),
      content_type: ContentType.NDJson,
    });
    expect(more).toMatchObject({ rows_written: 1 });

    const { status, rows } = await runSql(`
      select label, address, amount, amount + 1 as amount_plus_one, delta, block_number, tx_index, price,
             active, cast(seen_at as varchar) as seen_at, day,
             address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2 as is_weth
      from dune.alice.typed_rows order by block_number desc`);
    expect(status.state, JSON.stringify(status)).toBe('QUERY_STATE_COMPLETED');
    expect(rows).toEqual([
      {
        label: 'Uni, V3',
        address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
        amount: '99999999999999999999999999999999999999',
        amount_plus_one: '100000000000000000000000000000000000000',
        delta: -42,
        block_number: 19000000,
        tx_index: 7,
        price: 1.5,
        active: true,
        seen_at: '2024-01-31 10:00:00.000 UTC',
        day: null,
        is_weth: true,
      },
      expect.objectContaining({
        label: 'json',
        address: '0xab',
        amount: '12',
        seen_at: '2024-03-01 00:00:00.000 UTC',
        day: '2024-03-01',
      }),
      expect.objectContaining({
        label: '',
        address: '0x',
        amount: '0',
        active: false,
        seen_at: '2024-02-01 00:00:00.123 UTC',
      }),
    ]);

    const listed = await alice.uploads.list({ limit: 10 });
    expect(listed.tables).toEqual([
      expect.objectContaining({
        full_name: 'dune.alice.typed_rows',
        is_private: true,
        owner: { handle: 'alice', type: 'user' },
        columns: expect.arrayContaining([{ name: 'amount', type: 'uint256', nullable: true }]),
      }),
    ]);
    expect(Number(listed.tables[0]!.table_size_bytes)).toBeGreaterThan(0);

    // The catalog lists it (datasets, search) for its owner only, while it is private.
    const datasets = await bodyOf(await host.call('/v1/datasets?type=uploaded_table', { apiKey: aliceKey }));
    expect(datasets.datasets).toEqual([
      expect.objectContaining({
        full_name: 'dune.alice.typed_rows',
        type: 'uploaded_table',
        is_private: true,
      }),
    ]);
    const found = await bodyOf(
      await host.call('/v1/datasets/search', {
        apiKey: aliceKey,
        json: { query: 'typed_rows every column type' },
      }),
    );
    expect(found.results.map((result: Json) => result.full_name)).toContain('dune.alice.typed_rows');
    const bobs = await bodyOf(await host.call('/v1/datasets?type=uploaded_table', { apiKey: bobKey }));
    expect(bobs.datasets).toEqual([]);
    const one = await bodyOf(await host.call('/v1/datasets/dune.alice.typed_rows', { apiKey: aliceKey }));
    expect(one).toMatchObject({ full_name: 'dune.alice.typed_rows', type: 'uploaded_table' });
    expect(one.columns.map((column: Json) => `${column.name} ${column.type}`)).toContain('amount uint256');
    expect((await host.call('/v1/datasets/dune.alice.typed_rows', { apiKey: bobKey })).status).toBe(404);
  });

  it('joins an uploaded table with the onchain data (the README example)', async () => {
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'labels',
      schema: [
        { name: 'address', type: ColumnType.Varbinary },
        { name: 'label', type: ColumnType.Varchar },
      ],
    });
    await insertCsv('labels', 'address,label\n0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2,WETH\n');
    const joined = await runSql(`
      select l.label, count(*) as transfers
      from tokens.transfers t join dune.alice.labels l on l.address = t.contract_address
      group by 1`);
    const direct = await runSql(
      'select count(*) as transfers from tokens.transfers where contract_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    );
    expect(direct.rows[0].transfers).toBeGreaterThan(0);
    expect(joined.rows).toEqual([{ label: 'WETH', transfers: direct.rows[0].transfers }]);

    // A saved query over it has a pipeline (the upload is a source, not a node), and a view of it refreshes.
    const sql =
      'select l.label, count(*) as transfers from tokens.transfers t join dune.alice.labels l on l.address = t.contract_address group by 1';
    const { query_id } = await bodyOf(
      await host.call('/v1/query', { apiKey: aliceKey, json: { name: 'labelled', query_sql: sql } }),
    );
    const pipeline = await bodyOf(await host.call(`/v1/query/${query_id}/pipeline`, { apiKey: aliceKey }));
    expect(pipeline.pipeline?.nodes, JSON.stringify(pipeline)).toHaveLength(1);
    const view = await bodyOf(
      await host.call('/v1/materialized-views', {
        apiKey: aliceKey,
        json: { name: 'result_labelled', query_id },
      }),
    );
    expect((await waitUntilFinished(host, view.execution_id, 20_000, aliceKey)).state).toBe(
      'QUERY_STATE_COMPLETED',
    );
    expect((await runSql('select * from mv.alice.result_labelled')).rows).toEqual(joined.rows);
  });

  it('takes concurrent inserts into one table, each whole, none lost', async () => {
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'concurrent',
      schema: [
        { name: 'batch', type: ColumnType.Integer },
        { name: 'n', type: ColumnType.Integer },
      ],
    });
    const batches = Array.from({ length: 8 }, (_, batch) => batch);
    const answers = await Promise.all(
      batches.map((batch) =>
        insertCsv(
          'concurrent',
          `batch,n\n${Array.from({ length: 50 }, (_, n) => `${batch},${n}`).join('\n')}\n`,
        ),
      ),
    );
    expect(answers.map((answer) => answer.rows_written)).toEqual(batches.map(() => 50));
    const { rows } = await runSql(
      'select count(distinct batch) as batches, count(*) as rows, sum(n) as total from dune.alice.concurrent',
    );
    expect(rows).toEqual([{ batches: 8, rows: 400, total: 8 * ((49 * 50) / 2) }]);
    const table = (await alice.uploads.list({})).tables.find((t) => t.full_name === 'dune.alice.concurrent');
    expect(table).toMatchObject({ row_count: 400 });
  });

  it('clears a table (its columns stay) and deletes it, giving its storage back', async () => {
    // Stored bytes (results count too: compared around each step only).
    const storage = async () => (await alice.usage.getUsage()).bytes_used;
    // A query's result bytes are counted just after it reads COMPLETED: read once that landed.
    const settledStorage = async () => {
      for (let last = await storage(); ; ) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        const now = await storage();
        if (now === last) return now;
        last = now;
      }
    };
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'to_clear',
      schema: [{ name: 'n', type: ColumnType.Integer }],
    });
    await insertCsv('to_clear', 'n\n1\n2\n');
    expect((await runSql('select sum(n) as total from dune.alice.to_clear')).rows).toEqual([{ total: 3 }]);
    const beforeClear = (await host.services.uploads.get('dune.alice.to_clear'))!;
    // An insert that lands after the table was read for the clear is cleared and released too.
    const landed = { id: '01M8ZZZZZZZZZZZZZZZZZZZZZY', rows: 5, bytes: 7 };
    expect(
      await host.services.uploads.addFile(beforeClear.fullName, beforeClear.generation, landed, ''),
    ).toBe(true);
    await host.services.usage.addStorageBytes(beforeClear.accountId, landed.bytes);
    const stored = await settledStorage();
    expect(await alice.uploads.clear({ namespace: 'alice', table_name: 'to_clear' })).toMatchObject({
      message: expect.stringContaining('cleared'),
    });
    expect(await storage()).toBe(stored - beforeClear.sizeBytes - landed.bytes);
    const cleared = await runSql('select count(*) as rows, sum(n) as total from dune.alice.to_clear');
    expect(cleared.rows).toEqual([{ rows: 0, total: null }]);
    // An insert that read the table before the clear cannot land in it afterwards.
    const late = { id: '01M8ZZZZZZZZZZZZZZZZZZZZZZ', rows: 1, bytes: 1 };
    expect(await host.services.uploads.addFile(beforeClear.fullName, beforeClear.generation, late, '')).toBe(
      false,
    );
    await insertCsv('to_clear', 'n\n40\n');
    expect((await runSql('select sum(n) as total from dune.alice.to_clear')).rows).toEqual([{ total: 40 }]);
    const beforeDelete = await settledStorage();
    const size = (await host.services.uploads.get('dune.alice.to_clear'))!.sizeBytes;
    expect(size).toBeGreaterThan(0);

    expect(await alice.uploads.delete({ namespace: 'alice', table_name: 'to_clear' })).toMatchObject({
      message: expect.stringContaining('deleted'),
    });
    expect(await storage()).toBe(beforeDelete - size);
    const gone = await runSql('select * from dune.alice.to_clear');
    expect(gone.status.state).toBe('QUERY_STATE_FAILED');
    expect(gone.status.error.message).toMatch(
      /Table dune\.alice\.to_clear does not exist: no uploaded table of that name is readable by this account/,
    );
  });

  it('keeps a cleared or deleted generation for the runs still reading it, and drops it after the longest run', async () => {
    const fullName = 'dune.alice.kept_for_readers';
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'kept_for_readers',
      schema: [{ name: 'n', type: ColumnType.Integer }],
    });
    await insertCsv('kept_for_readers', 'n\n1\n2\n');
    const first = (await host.services.uploads.get(fullName))!;
    const directoryOf = (generation: string) =>
      uploadGenerationDirectory(join(host.dataDir, 'results'), fullName, generation);
    const filesOf = (generation: string) => readdir(directoryOf(generation)).catch(() => [] as string[]);
    expect(await filesOf(first.generation)).toHaveLength(1);

    const clearedAt = new Date();
    await alice.uploads.clear({ namespace: 'alice', table_name: 'kept_for_readers' });
    // The old generation's files stay: a query that started before the clear may still read them.
    expect(await filesOf(first.generation)).toHaveLength(1);
    const retiredNames = async () =>
      (await host.services.uploads.listRetired('9999'))
        .filter((retired) => retired.table.fullName === fullName)
        .map((retired) => retired.table.generation);
    expect(await retiredNames()).toEqual([first.generation]);
    const lifetime = retiredGenerationLifetimeMs(host.services);
    // Not before the longest run could have ended...
    expect(
      await dropRetiredUploadGenerations(host.services, new Date(clearedAt.getTime() + lifetime - 5_000)),
    ).toBe(0);
    expect(await filesOf(first.generation)).toHaveLength(1);
    await insertCsv('kept_for_readers', 'n\n7\n');
    const second = (await host.services.uploads.get(fullName))!;
    await alice.uploads.delete({ namespace: 'alice', table_name: 'kept_for_readers' });
    expect(await retiredNames()).toEqual([first.generation, second.generation]);
    expect(await filesOf(second.generation)).toHaveLength(1);
    // ...then gone, and forgotten.
    const later = new Date(Date.now() + lifetime + 60_000);
    expect(await dropRetiredUploadGenerations(host.services, later)).toBeGreaterThanOrEqual(2);
    expect(await retiredNames()).toEqual([]);
    await expect(stat(directoryOf(first.generation))).rejects.toThrow();
    await expect(stat(directoryOf(second.generation))).rejects.toThrow();
    expect(await dropRetiredUploadGenerations(host.services, later)).toBe(0);
  });

  it('uploads a CSV as dune.<handle>.dataset_<name> with inferred types, and replaces it on a second upload', async () => {
    const csv = 'Date,DGS10,Label,Live\n2023-12-04,4.28,a,true\n2023-12-05,4.18,,false\n';
    expect(await alice.uploads.uploadCsv({ table_name: 'rates', data: csv, description: 'rates' })).toBe(
      true,
    );
    const first = await runSql('select * from dune.alice.dataset_rates order by date');
    expect(first.rows).toEqual([
      { date: '2023-12-04', dgs10: 4.28, label: 'a', live: true },
      { date: '2023-12-05', dgs10: 4.18, label: null, live: false },
    ]);
    const response = await bodyOf(
      await host.call('/v1/uploads/csv', {
        apiKey: aliceKey,
        json: { table_name: 'rates', data: 'x,y\n1,2\n' },
      }),
    );
    expect(response).toMatchObject({
      success: true,
      full_name: 'dune.alice.dataset_rates',
      rows_written: 1,
      columns: [
        { name: 'x', type: 'bigint', nullable: true },
        { name: 'y', type: 'bigint', nullable: true },
      ],
    });
    expect((await runSql('select * from dune.alice.dataset_rates')).rows).toEqual([{ x: 1, y: 2 }]);

    // Header names become column names (a spreadsheet's "Token Address" is token_address); two
    // that become one name are refused, naming both.
    const spreadsheet = await host.call('/v1/uploads/csv', {
      apiKey: aliceKey,
      json: { table_name: 'hdr', data: 'Token Address,Label (EN)\n0xab,x\n' },
    });
    expect(spreadsheet.status, await spreadsheet.clone().text()).toBe(200);
    expect((await bodyOf(spreadsheet)).columns.map((c: Json) => c.name)).toEqual([
      'token_address',
      'label_en',
    ]);
    expect((await runSql('select token_address, label_en from dune.alice.dataset_hdr')).rows).toEqual([
      { token_address: '0xab', label_en: 'x' },
    ]);
    const clash = await host.call('/v1/uploads/csv', {
      apiKey: aliceKey,
      json: { table_name: 'hdr', data: 'token address,token-address\n1,2\n' },
    });
    expect({ status: clash.status, error: (await bodyOf(clash)).error }).toEqual({
      status: 400,
      error:
        'The CSV header columns 1 ("token address") and 2 ("token-address") both become the column name token_address: rename one of them.',
    });

    // A CSV's 0x strings stay varchar (as on Dune): joined with an address they are refused with
    // the fix, not matched against nothing; from_hex makes the join.
    await alice.uploads.uploadCsv({
      table_name: 'addresses',
      data: 'address\n0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2\n',
    });
    const join = (on: string) =>
      runSql(`select count(*) as n from tokens.transfers t join dune.alice.dataset_addresses a on ${on}`);
    const refused = await join('a.address = t.contract_address');
    expect(refused.status.error.message).toMatch(
      /a\.address is varchar\. If a\.address holds 0x text, compare from_hex\(a\.address\)/,
    );
    expect((await join('from_hex(a.address) = t.contract_address')).rows[0].n).toBeGreaterThan(0);
  });

  it('keeps private tables to their owner and lets others read public ones, never change them', async () => {
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'shared',
      schema: [{ name: 'v', type: ColumnType.Varchar }],
      is_private: false,
    });
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'secret',
      schema: [{ name: 'v', type: ColumnType.Varchar }],
      is_private: true,
    });
    for (const table of ['shared', 'secret']) {
      await insertCsv(table, `v\n${table}\n`);
    }
    expect((await runSql('select v from dune.alice.shared', bobKey)).rows).toEqual([{ v: 'shared' }]);
    const secret = await runSql('select v from dune.alice.secret', bobKey);
    expect(secret.status.state).toBe('QUERY_STATE_FAILED');
    expect(secret.status.error.message).toMatch(/dune\.alice\.secret does not exist/);

    const insert = (table: string) => postRows(table, 'v\nbob\n', { apiKey: bobKey });
    expect((await insert('shared')).status).toBe(403);
    expect((await insert('secret')).status).toBe(404);
    const bobClear = await host.call('/v1/uploads/alice/shared/clear', { apiKey: bobKey, method: 'POST' });
    expect(bobClear.status).toBe(403);
    const bobDelete = await host.call('/v1/uploads/alice/secret', { apiKey: bobKey, method: 'DELETE' });
    expect(bobDelete.status).toBe(404);
    const inAlices = await host.call('/v1/uploads', {
      apiKey: bobKey,
      json: { namespace: 'alice', table_name: 'mine', schema: [{ name: 'v', type: 'varchar' }] },
    });
    expect(inAlices.status).toBe(403);
    expect((await bodyOf(inAlices)).error).toMatch(/your own namespace, "bob"/);
    expect((await bodyOf(await host.call('/v1/uploads', { apiKey: bobKey }))).tables).toEqual([]);
    // Nothing of Bob's landed.
    expect((await runSql('select v from dune.alice.shared')).rows).toEqual([{ v: 'shared' }]);
  });

  it('lists its tables in dune.information_schema and SHOW, to others only the public ones', async () => {
    for (const [table, isPrivate] of [
      ['listed_open', false],
      ['listed_closed', true],
    ] as const) {
      await alice.uploads.create({
        namespace: 'alice',
        table_name: table,
        schema: [
          { name: 'address', type: ColumnType.Varbinary },
          { name: 'amount', type: ColumnType.Uint256, nullable: true },
        ],
        is_private: isPrivate,
      });
    }
    const listed =
      "select table_name from dune.information_schema.tables where table_name like 'listed%' order by 1";
    expect((await runSql(listed)).rows).toEqual([
      { table_name: 'listed_closed' },
      { table_name: 'listed_open' },
    ]);
    expect((await runSql(listed, bobKey)).rows).toEqual([{ table_name: 'listed_open' }]);
    expect((await runSql("show tables from dune.alice like 'listed%'", bobKey)).rows).toEqual([
      { Table: 'listed_open' },
    ]);
    expect((await runSql('describe dune.alice.listed_closed')).rows).toEqual([
      { Column: 'address', Type: 'varbinary', Extra: '', Comment: '' },
      { Column: 'amount', Type: 'uint256', Extra: '', Comment: '' },
    ]);
    const hidden = await runSql('show columns from dune.alice.listed_closed', bobKey);
    expect(hidden.status.error.message).toMatch(/dune\.alice\.listed_closed does not exist/);
    expect((await runSql('show schemas from dune', bobKey)).rows).toEqual([
      { Schema: 'alice' },
      { Schema: 'information_schema' },
    ]);
  });

  it('refuses bad input with a clear 4xx and leaves the table as it was', async () => {
    await alice.uploads.create({
      namespace: 'alice',
      table_name: 'strict',
      schema: [
        { name: 'id', type: ColumnType.Integer, nullable: false },
        { name: 'amount', type: ColumnType.Uint256 },
        { name: 'at', type: ColumnType.Timestamp },
      ],
    });
    await insertCsv('strict', 'id,amount,at\n1,5,2024-01-01\n');
    const insert = (body: string, contentType = 'text/csv') => postRows('strict', body, { contentType });
    const cases: [string, string, number, RegExp][] = [
      [
        'id,amount\n2,7\n3,-1\n',
        'text/csv',
        400,
        /CSV row 2, column amount: "-1" is not a non-negative integer/,
      ],
      ['id,amount\n2,1e3\n', 'text/csv', 400, /column amount/],
      [
        'id,amount,at\n2,1,2024-13-01\n',
        'text/csv',
        400,
        /column at: "2024-13-01" is not an ISO 8601 timestamp/,
      ],
      ['id,amount\n,1\n', 'text/csv', 400, /column id is not nullable/],
      ['id,wei\n1,1\n', 'text/csv', 400, /"wei", which is not a column of the table \(id, amount, at\)\.$/],
      // An insert into declared columns matches header names as written, and says what was meant.
      [
        ' ID ,Amount-\n2,1\n',
        'text/csv',
        400,
        /"Amount-", which is not a column .*; name it amount in the header/,
      ],
      [
        'id,amount,ID\n2,1,3\n',
        'text/csv',
        400,
        /columns 1 \("id"\) and 3 \("ID"\) both become the column name id/,
      ],
      ['id,amount\n1,2,3\n', 'text/csv', 400, /CSV row 1 has 3 fields; the header has 2/],
      ['id,amount\n"1,2\n', 'text/csv', 400, /The CSV cannot be read/],
      ['{"id": 2, "amount": 123456789012345678901}\n', 'application/x-ndjson', 400, /send it as a string/],
      ['{"id": 2, "wei": 1}\n', 'application/x-ndjson', 400, /"wei", which is not a column/],
      ['[1, 2]\n', 'application/x-ndjson', 400, /not a JSON object/],
      ['{"id": 2', 'application/x-ndjson', 400, /not JSON/],
      ['{"id": {"x": 1}}\n', 'application/x-ndjson', 400, /nested values are not supported/],
      [`id,amount\n2,${'9'.repeat(39)}\n`, 'text/csv', 400, /at most 38 digits/],
      ['id\n2\n', 'application/json', 415, /text\/csv .* or application\/x-ndjson/],
      [`id\n${'1\n'.repeat(3_000_000)}`, 'text/csv', 413, /Split the rows over several inserts/],
    ];
    for (const [body, contentType, status, message] of cases) {
      const response = await insert(body, contentType);
      const answer = await bodyOf(response);
      expect({ status: response.status, error: answer.error }, body.slice(0, 40)).toMatchObject({
        status,
        error: expect.stringMatching(message),
      });
    }
    expect((await runSql('select id, amount from dune.alice.strict')).rows).toEqual([{ id: 1, amount: '5' }]);

    // A resent insert with its Idempotency-Key lands once; the key with other rows is refused.
    const keyed = (body: string) =>
      postRows('strict', body, { headers: { 'idempotency-key': 'insert-strict-2' } });
    const first = await keyed('id,amount\n2,6\n');
    const resent = await keyed('id,amount\n2,6\n');
    expect([first.status, resent.status, resent.headers.get('idempotent-replayed')]).toEqual([
      200,
      200,
      'true',
    ]);
    expect(await bodyOf(resent)).toEqual(await bodyOf(first));
    expect((await keyed('id,amount\n3,7\n')).status).toBe(400);
    expect((await runSql('select count(*) as rows from dune.alice.strict')).rows).toEqual([{ rows: 2 }]);

    const create = (json: Json) => host.call('/v1/uploads', { apiKey: aliceKey, json });
    const bad: [Json, number, RegExp][] = [
      [
        { namespace: 'alice', table_name: '1abc', schema: [{ name: 'v', type: 'varchar' }] },
        400,
        /table_name must start with a letter/,
      ],
      [
        { namespace: 'alice', table_name: 'ok_name', schema: [{ name: 'v', type: 'text' }] },
        400,
        /type must be one of varchar/,
      ],
      [{ namespace: 'alice', table_name: 'ok_name', schema: [] }, 400, /at least one column/],
      [
        {
          namespace: 'alice',
          table_name: 'ok_name',
          schema: [
            { name: 'v', type: 'varchar' },
            { name: 'v', type: 'bigint' },
          ],
        },
        400,
        /names a column twice/,
      ],
      [
        { namespace: 'alice', table_name: 'strict', schema: [{ name: 'v', type: 'varchar' }] },
        409,
        /already exists with other columns/,
      ],
    ];
    for (const [json, status, message] of bad) {
      const response = await create(json);
      expect({ status: response.status, error: (await bodyOf(response)).error }).toMatchObject({
        status,
        error: expect.stringMatching(message),
      });
    }
    const missing = await postRows('nothing_here', 'v\n1\n');
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error).toMatch(
      /not found \(never created, or deleted\)\. Your tables: GET \/v1\/uploads; a new one: POST \/v1\/uploads/,
    );
  });
});
