import { ColumnType, ContentType, DuneClient } from '@duneanalytics/client-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchPointedAt } from '../support/dune-sdk';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

// Poll quickly: the SDK's default is one status call per second.
const fast = { pingFrequency: 0.05 };

/**
 * Dune's deprecated `/v1/table/*` paths through the official Dune SDK's `client.table` (which
 * still calls them), and their refusals: each is its `/v1/uploads` successor under another path,
 * so a bad request gets the very answer the successor gives.
 */
describe("the Dune SDK's deprecated client.table", () => {
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

  /** Runs SQL as Alice through the SDK; the rows. */
  async function rowsOf(sql: string): Promise<Json[]> {
    const result = await alice.runSql({ query_sql: sql, archiveAfter: true, isPrivate: true, opts: fast });
    expect(result.state, JSON.stringify(result.error)).toBe('QUERY_STATE_COMPLETED');
    return result.result!.rows;
  }

  it('creates a table, inserts CSV and NDJSON, uploads a CSV and deletes, SQL reading the rows back', async () => {
    const schema = [
      { name: 'day', type: ColumnType.Date },
      { name: 'rate', type: ColumnType.Double },
      { name: 'label', type: ColumnType.Varchar, nullable: true },
    ];
    const created = await alice.table.create({
      namespace: 'alice',
      table_name: 'legacy_rates',
      description: 'made through /v1/table/create',
      schema,
    });
    // Dune's answer (its SDK's CreateTableResult, plus already_existed and message).
    expect(created).toEqual({
      namespace: 'alice',
      table_name: 'legacy_rates',
      full_name: 'dune.alice.legacy_rates',
      example_query: 'select * from dune.alice.legacy_rates limit 10',
      already_existed: false,
      message: 'Table created successfully',
    });
    // One table behind both paths: the successor sees it as there already.
    expect(
      await alice.uploads.create({ namespace: 'alice', table_name: 'legacy_rates', schema }),
    ).toMatchObject({ full_name: 'dune.alice.legacy_rates', already_existed: true });

    const csv = await alice.table.insert({
      namespace: 'alice',
      table_name: 'legacy_rates',
      data: Buffer.from('day,rate,label\n2023-12-04,4.28,a\n2023-12-05,4.18,\n'),
      content_type: ContentType.Csv,
    });
    // Dune's InsertTableResult: rows_written and bytes_written (the successor's `name` too).
    expect(csv).toEqual({
      rows_written: 2,
      bytes_written: expect.any(Number),
      name: 'dune.alice.legacy_rates',
    });
    expect((csv as Json).bytes_written).toBeGreaterThan(0);
    const ndjson = await alice.table.insert({
      namespace: 'alice',
      table_name: 'legacy_rates',
      data: Buffer.from(`${JSON.stringify({ day: '2023-12-06', rate: 4.12, label: 'json' })}\n`),
      content_type: ContentType.NDJson,
    });
    expect(ndjson).toMatchObject({ rows_written: 1 });
    expect(await rowsOf('select day, rate, label from dune.alice.legacy_rates order by day')).toEqual([
      { day: '2023-12-04', rate: 4.28, label: 'a' },
      { day: '2023-12-05', rate: 4.18, label: null },
      { day: '2023-12-06', rate: 4.12, label: 'json' },
    ]);

    // uploadCsv answers Dune's `success` as the SDK's boolean; the table is dataset_<name>.
    expect(
      await alice.table.uploadCsv({ table_name: 'legacy_csv', data: 'Token,Amount\nWETH,2\nUSDC,5\n' }),
    ).toBe(true);
    expect(await rowsOf('select token, amount from dune.alice.dataset_legacy_csv order by amount')).toEqual([
      { token: 'WETH', amount: 2 },
      { token: 'USDC', amount: 5 },
    ]);

    for (const table_name of ['legacy_rates', 'dataset_legacy_csv']) {
      // Dune's DeleteTableResult: a message.
      expect(await alice.table.delete({ namespace: 'alice', table_name })).toEqual({
        message: `Table dune.alice.${table_name} deleted.`,
      });
    }
    expect((await alice.uploads.list({})).tables).toEqual([]);
    const gone = await alice.exec.executeSql({ sql: 'select * from dune.alice.legacy_rates' });
    const status = await waitUntilFinished(host, gone.execution_id, 20_000, aliceKey);
    expect(status.state).toBe('QUERY_STATE_FAILED');
    expect(status.error.message).toMatch(/Table dune\.alice\.legacy_rates does not exist/);
  });

  it('refuses bad input on the deprecated paths with the same 4xx and message as on /v1/uploads', async () => {
    await alice.table.create({
      namespace: 'alice',
      table_name: 'strict',
      schema: [
        { name: 'id', type: ColumnType.Integer, nullable: false },
        { name: 'amount', type: ColumnType.Uint256 },
      ],
    });
    // Private: another account gets a 404 for it, as if absent; public: a 403.
    await alice.table.create({
      namespace: 'alice',
      table_name: 'shut',
      is_private: true,
      schema: [{ name: 'v', type: ColumnType.Varchar }],
    });
    const schema = [{ name: 'v', type: 'varchar' }];
    /** A request, then the deprecated path and its successor answering it. */
    const cases: { why: string; status: number; table: string; uploads: string; init: Json }[] = [
      ...(
        [
          ['a table name starting with a digit', 400, { namespace: 'alice', table_name: '1abc', schema }],
          [
            'an unknown column type',
            400,
            { namespace: 'alice', table_name: 'ok', schema: [{ name: 'v', type: 'text' }] },
          ],
          ['no columns', 400, { namespace: 'alice', table_name: 'ok', schema: [] }],
          ['an unknown field', 400, { namespace: 'alice', table_name: 'ok', schema, colour: 'red' }],
          ["another account's namespace", 403, { namespace: 'bob', table_name: 'ok', schema }],
          ['a name in use with other columns', 409, { namespace: 'alice', table_name: 'strict', schema }],
        ] as const
      ).map(([why, status, json]) => ({
        why: `create: ${why}`,
        status,
        table: '/v1/table/create',
        uploads: '/v1/uploads',
        init: { json },
      })),
      ...(
        [
          ['a value that does not fit', 400, 'strict', 'text/csv', 'id,amount\n2,-1\n'],
          ['an unknown column', 400, 'strict', 'text/csv', 'id,wei\n2,1\n'],
          ['a null in a column that is not nullable', 400, 'strict', 'text/csv', 'id,amount\n,1\n'],
          ['a line that is not JSON', 400, 'strict', 'application/x-ndjson', '{"id": 2'],
          ['a content type it does not read', 415, 'strict', 'application/json', '{"id": 2}'],
          ['a table never created', 404, 'nothing_here', 'text/csv', 'v\n1\n'],
        ] as const
      ).map(([why, status, table, contentType, body]) => ({
        why: `insert: ${why}`,
        status,
        table: `/v1/table/alice/${table}/insert`,
        uploads: `/v1/uploads/alice/${table}/insert`,
        init: { method: 'POST', headers: { 'content-type': contentType }, body },
      })),
      ...(
        [
          ['no data', 400, { table_name: 'csv_ok' }],
          ['a bad table name', 400, { table_name: 'Bad-Name', data: 'a\n1\n' }],
          ['two headers that become one column', 400, { table_name: 'csv_ok', data: 'a b,a-b\n1,2\n' }],
        ] as const
      ).map(([why, status, json]) => ({
        why: `uploadCsv: ${why}`,
        status,
        table: '/v1/table/upload/csv',
        uploads: '/v1/uploads/csv',
        init: { json },
      })),
      {
        why: 'delete: a table never created',
        status: 404,
        table: '/v1/table/alice/nothing_here',
        uploads: '/v1/uploads/alice/nothing_here',
        init: { method: 'DELETE' },
      },
      {
        why: 'delete: a bad table name',
        status: 400,
        table: '/v1/table/alice/Bad-Name',
        uploads: '/v1/uploads/alice/Bad-Name',
        init: { method: 'DELETE' },
      },
    ];
    /** What a path answers a request: its status and error message. */
    const answer = async (path: string, init: Json) => {
      const response = await host.call(path, init);
      return { status: response.status, error: (await bodyOf(response)).error };
    };
    for (const { why, status, table, uploads, init } of cases) {
      const old = await answer(table, { apiKey: aliceKey, ...init });
      expect(old, why).toEqual(await answer(uploads, { apiKey: aliceKey, ...init }));
      expect(old.status, why).toBe(status);
      expect(old.error, why).toEqual(expect.any(String));
    }

    // Another account: Alice's private table is absent to Bob, her public one not his to change.
    for (const [table, status] of [
      ['shut', 404],
      ['strict', 403],
    ] as const) {
      const init = { apiKey: bobKey, method: 'DELETE' };
      const old = await answer(`/v1/table/alice/${table}`, init);
      expect(old, table).toEqual(await answer(`/v1/uploads/alice/${table}`, init));
      expect(old.status, table).toBe(status);
    }

    // Through the SDK the refusal is its DuneError with our status and message.
    await expect(
      alice.table.insert({
        namespace: 'alice',
        table_name: 'strict',
        data: Buffer.from('id,amount\n2,-1\n'),
        content_type: ContentType.Csv,
      }),
    ).rejects.toThrow(
      /HTTP - Status: 400, Message: {"error":"CSV row 1, column amount: .*-1.* is not a non-negative/,
    );
    // Nothing of the refused requests landed.
    expect(await rowsOf('select count(*) as rows from dune.alice.strict')).toEqual([{ rows: 0 }]);
    expect((await alice.uploads.list({})).tables.map((t) => t.full_name).sort()).toEqual([
      'dune.alice.shut',
      'dune.alice.strict',
    ]);
  });
});
