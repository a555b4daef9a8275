import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_VIEW_DEPTH } from '../../functions/queries/query-views';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

describe('query views: a saved query read as a table, with parameters, nested, in pipelines', () => {
  let host: TestHost;
  let otherKey: string;
  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'view_neighbour');
  });
  afterAll(() => host?.stop());

  const createQuery = async (sql: string, extra: Record<string, unknown> = {}, apiKey?: string) => {
    const response = await host.call('/v1/query', {
      json: { name: 'view part', query_sql: sql, ...extra },
      ...(apiKey ? { apiKey } : {}),
    });
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(200);
    return (await bodyOf(response)).query_id as number;
  };
  const setSql = async (queryId: number, sql: string) =>
    expect(
      (await host.call(`/v1/query/${queryId}`, { method: 'PATCH', json: { query_sql: sql } })).status,
    ).toBe(200);
  /** Runs SQL to the end and returns its rows (fails the test if it did not complete). */
  const rowsOf = async (submitted: Response): Promise<Json[]> => {
    const body = await bodyOf(submitted);
    expect(submitted.status, JSON.stringify(body)).toBe(200);
    const status = await waitUntilFinished(host, body.execution_id);
    expect(status.state, JSON.stringify(status.error)).toBe('QUERY_STATE_COMPLETED');
    return (await bodyOf(await host.call(`/v1/execution/${body.execution_id}/results`))).result.rows;
  };
  const sqlRows = async (sql: string) => rowsOf(await host.call('/v1/sql/execute', { json: { sql } }));
  const refusal = async (response: Response) => {
    const body = await bodyOf(response);
    expect(response.status, JSON.stringify(body)).toBe(400);
    return body.error as string;
  };

  const TRADES_BY_CHAIN = 'select blockchain, count(*) as trades from dex.trades group by 1';

  it('reads a saved query as a table: bare, aliased, qualified, joined with itself and in a CTE', async () => {
    const id = await createQuery(TRADES_BY_CHAIN);
    const direct = await sqlRows(`${TRADES_BY_CHAIN} order by 1`);
    expect(direct.length).toBeGreaterThan(1);
    expect(await sqlRows(`select * from query_${id} order by 1`)).toEqual(direct);
    expect(await sqlRows(`select q.blockchain, q.trades from query_${id} as q order by 1`)).toEqual(direct);
    expect(
      await sqlRows(`select query_${id}.blockchain, query_${id}.trades from QUERY_${id} order by 1`),
    ).toEqual(direct);
    expect(
      await sqlRows(
        `with top as (select * from query_${id} order by trades desc limit 1)\nselect count(*) as n from query_${id} a join top on top.blockchain = a.blockchain`,
      ),
    ).toEqual([{ n: 1 }]);
    // A CTE of the same name is a CTE, not the view.
    expect(await sqlRows(`with query_${id} as (select 7 as x) select * from query_${id}`)).toEqual([
      { x: 7 },
    ]);
    // A view's unaliased columns are named as Trino names them, not after the expression text.
    const unnamed = await createQuery(
      'select blockchain, count(*), max(block_number) from dex.trades group by 1',
    );
    const [first] = await sqlRows(`select * from query_${unnamed} order by 1 limit 1`);
    expect(Object.keys(first!)).toEqual(['blockchain', '_col1', '_col2']);
  });

  it("passes parameter values as SQL text (Dune's macro), with the saved defaults for the rest", async () => {
    const quoted = await createQuery(
      "select blockchain, count(*) as trades from dex.trades where blockchain = '{{chain}}' group by 1 limit {{n}}",
      {
        parameters: [
          { key: 'chain', type: 'text', value: 'ethereum' },
          { key: 'n', type: 'number', value: '5' },
        ],
      },
    );
    expect(await sqlRows(`select blockchain from query_${quoted}`)).toEqual([{ blockchain: 'ethereum' }]);
    expect(await sqlRows(`select blockchain from "query_${quoted}(chain='base')"`)).toEqual([
      { blockchain: 'base' },
    ]);
    expect(await sqlRows(`select blockchain from "query_${quoted}(chain='base', n='0')"`)).toEqual([]);
    // A placeholder outside quotes gets the text as written: a string literal needs its quotes.
    const bare = await createQuery(
      'select blockchain, count(*) as trades from dex.trades where blockchain = {{chain}} group by 1',
      { parameters: [{ key: 'chain', type: 'text', value: 'ethereum' }] },
    );
    expect(await sqlRows(`select blockchain from "query_${bare}(chain='\\'arbitrum\\'')"`)).toEqual([
      { blockchain: 'arbitrum' },
    ]);
    expect(await sqlRows(`select blockchain from "query_${bare}(chain='upper(\\'base\\')')"`)).toEqual([]);
  });

  it("passes a caller's own parameters on through the view's name, escaped, several levels deep", async () => {
    const inner = await createQuery(
      "select blockchain, count(*) as trades from dex.trades where blockchain = '{{chain}}' group by 1",
      { parameters: [{ key: 'chain', type: 'text', value: 'ethereum' }] },
    );
    const middle = await createQuery(`select * from "query_${inner}(chain='{{c}}')"`, {
      parameters: [{ key: 'c', type: 'text', value: 'arbitrum' }],
    });
    const outer = await createQuery(`select blockchain, trades * 2 as doubled from query_${middle}`);
    const run = (queryId: number, parameters: Record<string, string> = {}) =>
      host.call(`/v1/query/${queryId}/execute`, { json: { query_parameters: parameters } });
    expect(await rowsOf(await run(middle))).toEqual([{ blockchain: 'arbitrum', trades: expect.any(Number) }]);
    expect(await rowsOf(await run(middle, { c: 'base' }))).toEqual([
      { blockchain: 'base', trades: expect.any(Number) },
    ]);
    // A quote in the value stays data: no row matches, and the statement is still one statement.
    expect(await rowsOf(await run(middle, { c: "base' or '1'='1" }))).toEqual([]);
    expect(await rowsOf(await run(outer))).toEqual([{ blockchain: 'arbitrum', doubled: expect.any(Number) }]);
  });

  it("reads another account's public query, never its private one or an archived one", async () => {
    const shared = await createQuery('select 1 as shared', {}, otherKey);
    const secret = await createQuery('select 2 as secret', { is_private: true }, otherKey);
    expect(await sqlRows(`select * from query_${shared}`)).toEqual([{ shared: 1 }]);
    expect(
      await refusal(await host.call('/v1/sql/execute', { json: { sql: `select * from query_${secret}` } })),
    ).toBe(`The SQL reads the query view query_${secret}: Query ${secret} not found or private.`);
    expect(
      await refusal(await host.call('/v1/sql/execute', { json: { sql: 'select * from query_987654321' } })),
    ).toMatch(/query_987654321: Query 987654321 not found/);
    const archived = await createQuery('select 3 as gone');
    expect((await host.call(`/v1/query/${archived}/archive`, { method: 'POST' })).status).toBe(200);
    expect(
      await refusal(await host.call('/v1/sql/execute', { json: { sql: `select * from query_${archived}` } })),
    ).toMatch(new RegExp(`query_${archived}: Query ${archived} is archived`));
  });

  it('refuses cycles, depth past the limit, unknown or malformed parameters, saying which view', async () => {
    const a = await createQuery('select 1 as x');
    const b = await createQuery(`select * from query_${a}`);
    await setSql(a, `select * from query_${b}`);
    expect(await refusal(await host.call(`/v1/query/${a}/execute`, { json: {} }))).toBe(
      `The query views call each other in a cycle: query_${a} → query_${b} → query_${a}. A query cannot read itself.`,
    );
    const self = await createQuery('select 1 as x');
    await setSql(self, `select * from query_${self}`);
    expect(await refusal(await host.call(`/v1/query/${self}/execute`, { json: {} }))).toMatch(/cycle/);

    // Views in views as deep as the limit run; one level more is refused.
    let deepest = await createQuery('select 1 as x');
    for (let level = 1; level < MAX_QUERY_VIEW_DEPTH; level++) {
      deepest = await createQuery(`select * from query_${deepest}`);
    }
    expect(await sqlRows(`select x from query_${deepest}`)).toEqual([{ x: 1 }]);
    const tooDeep = await createQuery(`select * from query_${deepest}`);
    expect(await rowsOf(await host.call(`/v1/query/${tooDeep}/execute`, { json: {} }))).toEqual([{ x: 1 }]);
    expect(
      await refusal(await host.call('/v1/sql/execute', { json: { sql: `select * from query_${tooDeep}` } })),
    ).toMatch(new RegExp(`nested more than ${MAX_QUERY_VIEW_DEPTH} deep`));

    const plain = await createQuery('select 1 as x');
    expect(
      await refusal(
        await host.call('/v1/sql/execute', { json: { sql: `select * from "query_${plain}(chain='x')"` } }),
      ),
    ).toBe(`The query view query_${plain}(chain='x') passes "chain", but query ${plain} has no parameters.`);
    expect(
      await refusal(
        await host.call('/v1/sql/execute', { json: { sql: `select * from "query_${plain}(chain=x)"` } }),
      ),
    ).toMatch(
      /Cannot read the parameters of "query_\d+\(chain=x\)": the value of "chain" must be in single quotes/,
    );
    const needsValue = await createQuery("select '{{who}}' as who", {
      parameters: [{ key: 'who', type: 'text', value: '' }],
    });
    expect(
      await refusal(
        await host.call('/v1/sql/execute', { json: { sql: `select * from query_${needsValue}` } }),
      ),
    ).toMatch(/Parameter "who" has no value and no default; pass it as "query_\d+\(name='value'\)"/);
  });

  it("reports an error inside the called query's SQL as the execution's error", async () => {
    const broken = await createQuery('select no_such_column as x from dex.trades');
    const failureOf = async (sql: string) => {
      const submitted = await bodyOf(await host.call('/v1/sql/execute', { json: { sql } }));
      const status = await waitUntilFinished(host, submitted.execution_id);
      expect(status.state).toBe('QUERY_STATE_FAILED');
      return status.error;
    };
    // Reported where the view is called, naming it (the SQL that ran has the view's SQL there).
    const inside = await failureOf(`select 1 as a,\n  x\nfrom query_${broken}`);
    expect(inside.message).toMatch(
      new RegExp(`no_such_column.*\\(in the SQL of query_${broken}, called at line 3, column 6\\)`, 's'),
    );
    expect(inside.metadata).toEqual({ line: 3, column: 6 });
    // An error after a view, on its line, is where the user wrote it.
    const fine = await createQuery('select 1 as x');
    const after = await failureOf(`select x\nfrom query_${fine} where nope = 1`);
    const column = `from query_${fine} where `.length + 1;
    expect(after.message).toMatch(
      new RegExp(`^Column 'nope' cannot be resolved.*\\(line 2, column ${column}\\)`, 's'),
    );
    expect(after.message).not.toMatch(/in the SQL of/);
    expect(after.metadata).toEqual({ line: 2, column });
  });

  it("puts the materialized views a query view reads into the caller's pipeline", async () => {
    const viewQuery = await createQuery('select symbol, avg(price) as price from prices.usd group by 1');
    const upsert = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: { name: 'result_view_prices', query_id: viewQuery },
      }),
    );
    expect((await waitUntilFinished(host, upsert.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const reader = await createQuery('select symbol, price from mv.local.result_view_prices where price > 0');
    const root = await createQuery(`select count(*) as priced from query_${reader}`);
    const definition = await bodyOf(await host.call(`/v1/query/${root}/pipeline`));
    expect(definition.pipeline.nodes).toEqual([
      {
        id: 1,
        dependencies: [],
        materialized_view_refresh: { name: 'mv.local.result_view_prices', performance: 'medium' },
      },
      { id: 2, dependencies: [1], query_execution: { query_id: root, performance: 'medium' } },
    ]);
    const started = await bodyOf(await host.call(`/v1/query/${root}/pipeline/execute`, { json: {} }));
    const deadline = Date.now() + 30_000;
    let status: Json;
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await bodyOf(
        await host.call(`/v1/pipelines/executions/${started.pipeline_execution_id}/status`),
      );
    } while (!['completed', 'failed', 'cancelled'].includes(status.status) && Date.now() < deadline);
    expect(status.status, JSON.stringify(status)).toBe('completed');
    // A materialized view whose query reads a query view refreshes through it too.
    const viaView = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_view_via', query_id: root } }),
    );
    expect((await waitUntilFinished(host, viaView.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    expect(await sqlRows('select priced from mv.local.result_view_via')).toEqual([
      { priced: expect.any(Number) },
    ]);
  }, 60_000);
});
