import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitSql, waitForStatus, waitUntilFinished } from '../support/executions';
import { crossJoinSql } from '../support/runaway-sql';
import { bodyOf, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

describe('materialized views: upsert, atomic refresh, catalog and access', () => {
  let host: TestHost;
  let otherKey: string;
  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'outsider');
  });
  afterAll(() => host?.stop());

  const createQuery = async (sql: string, extra: Record<string, unknown> = {}) =>
    (await bodyOf(await host.call('/v1/query', { json: { name: 'mv source', query_sql: sql, ...extra } })))
      .query_id as number;
  const readValue = async (sql: string, apiKey?: string) => {
    const id = await submitSql(host, sql, {}, apiKey);
    const status = await waitUntilFinished(host, id, 30_000, apiKey);
    if (status.state !== 'QUERY_STATE_COMPLETED') return status;
    return (await bodyOf(await host.call(`/v1/execution/${id}/results`, apiKey ? { apiKey } : {}))).result
      .rows;
  };

  it('materializes a query, serves it to SQL and the catalog, and keeps it from other accounts', async () => {
    const queryId = await createQuery(
      'select blockchain, count(*) as trades, sum(token_bought_amount_raw) as bought_raw from dex.trades group by 1 order by 1',
      { is_private: true },
    );
    const upsert = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: { name: 'result_trades_by_chain', query_id: queryId },
      }),
    );
    expect(upsert).toEqual({ name: 'mv.local.result_trades_by_chain', execution_id: expect.any(String) });
    expect((await waitUntilFinished(host, upsert.execution_id)).state).toBe('QUERY_STATE_COMPLETED');

    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_trades_by_chain'));
    expect(view).toMatchObject({
      // Every name in the answer is the full name the upsert answered, and that GET takes.
      id: upsert.name,
      sql_id: upsert.name,
      name: upsert.name,
      query_id: queryId,
      is_private: true,
      row_count: 3,
      last_execution_ids: [upsert.execution_id],
    });
    expect(view.columns.map((c: { name: string }) => c.name)).toEqual(['blockchain', 'trades', 'bought_raw']);
    const mine = await bodyOf(await host.call('/v1/materialized-views'));
    expect(mine.materialized_views.find((v: { id: string }) => v.id === upsert.name)).toMatchObject({
      name: upsert.name,
    });

    const rows = await readValue(
      'select blockchain, trades, bought_raw > 0 as positive from mv.local.result_trades_by_chain order by 1',
    );
    expect(rows.map((r: { blockchain: string }) => r.blockchain)).toEqual(['arbitrum', 'base', 'ethereum']);
    // 128-bit integers come back as numbers SQL can compute with, not as text.
    const summed = await readValue('select sum(bought_raw) > 0 as ok from mv.local.result_trades_by_chain');
    expect(summed).toEqual([{ ok: true }]);

    const listed = await bodyOf(await host.call('/v1/datasets?type=materialized_view'));
    expect(listed.datasets.map((d: { full_name: string }) => d.full_name)).toContain(
      'mv.local.result_trades_by_chain',
    );
    const found = await bodyOf(
      await host.call('/v1/datasets/search', { json: { query: 'trades_by_chain' } }),
    );
    expect(found.results[0].full_name).toBe('mv.local.result_trades_by_chain');

    expect(
      (await host.call('/v1/materialized-views/mv.local.result_trades_by_chain', { apiKey: otherKey }))
        .status,
    ).toBe(404);
    expect(
      (await host.call('/v1/datasets/mv.local.result_trades_by_chain', { apiKey: otherKey })).status,
    ).toBe(404);
    const snoop = await readValue('select * from mv.local.result_trades_by_chain', otherKey);
    expect(snoop).toMatchObject({ state: 'QUERY_STATE_FAILED', error: { type: 'execution_error' } });

    // mv's information_schema lists the view with its DuneSQL types, to its owner only.
    expect(await readValue('show columns from mv.local.result_trades_by_chain')).toEqual([
      { Column: 'blockchain', Type: 'varchar', Extra: '', Comment: '' },
      { Column: 'trades', Type: 'bigint', Extra: '', Comment: '' },
      { Column: 'bought_raw', Type: 'uint256', Extra: '', Comment: '' },
    ]);
    const listedInSql = 'select table_schema, table_name, table_type from mv.information_schema.tables';
    expect(await readValue(listedInSql)).toEqual([
      { table_schema: 'local', table_name: 'result_trades_by_chain', table_type: 'VIEW' },
    ]);
    expect(await readValue(listedInSql, otherKey)).toEqual([]);
  });

  it('replaces the table atomically: readers see the old version until a refresh completes, and a failed refresh changes nothing', async () => {
    const queryId = await createQuery('select 1 as version');
    const first = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_versioned', query_id: queryId } }),
    );
    await waitUntilFinished(host, first.execution_id);
    expect(await readValue('select version from mv.local.result_versioned')).toEqual([{ version: 1 }]);

    // A slow refresh: while it runs, readers still get version 1.
    await host.call(`/v1/query/${queryId}`, {
      method: 'PATCH',
      json: {
        query_sql: `select 2 as version, h as n from (${crossJoinSql(20000 * 20000)})`,
      },
    });
    const slow = await bodyOf(
      await host.call('/v1/materialized-views/mv.local.result_versioned/refresh', { json: {} }),
    );
    await waitForStatus(host, slow.execution_id, (s) => s.state === 'QUERY_STATE_EXECUTING');
    expect(await readValue('select version from mv.local.result_versioned')).toEqual([{ version: 1 }]);
    expect((await waitUntilFinished(host, slow.execution_id, 60_000)).state).toBe('QUERY_STATE_COMPLETED');
    expect(await readValue('select version from mv.local.result_versioned')).toEqual([{ version: 2 }]);

    await host.call(`/v1/query/${queryId}`, {
      method: 'PATCH',
      json: { query_sql: 'select * from no_such_table' },
    });
    const failing = await bodyOf(
      await host.call('/v1/materialized-views/mv.local.result_versioned/refresh', { json: {} }),
    );
    expect((await waitUntilFinished(host, failing.execution_id)).state).toBe('QUERY_STATE_FAILED');
    expect(await readValue('select version from mv.local.result_versioned')).toEqual([{ version: 2 }]);
    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_versioned'));
    expect(view.last_execution_ids).toEqual([failing.execution_id, slow.execution_id, first.execution_id]);
    expect(view.current_execution_id).toBe(slow.execution_id);
  }, 90_000);

  it('keeps interval columns intervals for the queries that read the view, a negative one included', async () => {
    const queryId = await createQuery(
      "select interval '2' day as ahead, -(interval '90' minute) as behind, interval '14' month as later, " +
        "timestamp '2024-01-01 12:00:00.000' at time zone 'Asia/Tokyo' as tokyo",
      { is_private: true },
    );
    const upsert = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_gaps', query_id: queryId } }),
    );
    expect((await waitUntilFinished(host, upsert.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_gaps'));
    expect(view.columns).toEqual([
      { name: 'ahead', type: 'interval day to second' },
      { name: 'behind', type: 'interval day to second' },
      { name: 'later', type: 'interval year to month' },
      { name: 'tokyo', type: 'timestamp(3) with time zone' },
    ]);
    expect(
      await readValue(
        "select ahead, behind, timestamp '2024-01-01 00:00:00' + ahead + behind as moved, " +
          "date '2024-01-31' + later as months_on, later, date_trunc('hour', tokyo) as tokyo " +
          'from mv.local.result_gaps',
      ),
    ).toEqual([
      {
        ahead: '2 00:00:00.000',
        behind: '-0 01:30:00.000',
        moved: '2024-01-02 22:30:00.000 UTC',
        months_on: '2025-03-31',
        // Read back with the types the view stored them with.
        later: '1-2',
        tokyo: '2024-01-01 21:00:00.000 Asia/Tokyo',
      },
    ]);
    // Through a star, and cast to text, the stored types stay too.
    expect(
      await readValue(
        "select *, cast(tokyo as varchar) as tokyo_text, later + interval '1' year as next_year " +
          'from mv.local.result_gaps',
      ),
    ).toEqual([
      {
        ahead: '2 00:00:00.000',
        behind: '-0 01:30:00.000',
        later: '1-2',
        tokyo: '2024-01-01 21:00:00.000 Asia/Tokyo',
        tokyo_text: '2024-01-01 21:00:00.000 Asia/Tokyo',
        next_year: '2-2',
      },
    ]);
  });

  it('lists, schedules and deletes views', async () => {
    const queryId = await createQuery('select 42 as answer');
    const created = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: {
          name: 'result_answer',
          query_id: queryId,
          cron_expression: '0 */6 * * *',
          performance: 'large',
        },
      }),
    );
    await waitUntilFinished(host, created.execution_id);
    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_answer'));
    expect(view.schedule).toMatchObject({
      cron_expression: '0 */6 * * *',
      performance: 'large',
      next_execution_time: expect.any(String),
    });
    // A schedule that ends before its next fire time has none to show.
    const minute = (new Date().getUTCMinutes() + 30) % 60;
    const ending = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: {
          name: 'result_answer',
          query_id: queryId,
          cron_expression: `${minute} * * * *`,
          expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
        },
      }),
    );
    await waitUntilFinished(host, ending.execution_id);
    const ended = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_answer'));
    expect(ended.schedule).toMatchObject({ cron_expression: `${minute} * * * *`, next_execution_time: null });
    const list = await bodyOf(await host.call('/v1/materialized-views?limit=100'));
    expect(list.materialized_views.map((v: { id: string }) => v.id)).toContain('mv.local.result_answer');
    expect(
      await bodyOf(await host.call('/v1/materialized-views/mv.local.result_answer', { method: 'DELETE' })),
    ).toEqual({ message: 'ok', dependents: [] });
    expect((await host.call('/v1/materialized-views/mv.local.result_answer')).status).toBe(404);
    expect(await readValue('select * from mv.local.result_answer')).toMatchObject({
      state: 'QUERY_STATE_FAILED',
    });
  });

  it('names the views that read a view: GET shows them, and a delete goes ahead but warns of them', async () => {
    const upsert = async (name: string, sql: string, apiKey?: string) => {
      const queryId = (
        await bodyOf(
          await host.call('/v1/query', {
            json: { name, query_sql: sql, is_private: false },
            ...(apiKey ? { apiKey } : {}),
          }),
        )
      ).query_id as number;
      const made = await bodyOf(
        await host.call('/v1/materialized-views', {
          json: { name, query_id: queryId },
          ...(apiKey ? { apiKey } : {}),
        }),
      );
      await waitUntilFinished(host, made.execution_id, 30_000, apiKey);
    };
    await upsert('result_dep_mid', 'select 7 as v');
    await upsert('result_dep_down', 'select v * 2 as w from mv.local.result_dep_mid');
    await upsert(
      'result_dep_side',
      'with m as (select v from mv.local.result_dep_mid) select v + 1 as u from m',
    );
    await upsert('result_dep_other', 'select 1 as x');
    // Through a query view: its SQL runs inside the view's query.
    const reader = await createQuery('select v from mv.local.result_dep_mid');
    await upsert('result_dep_via', `select * from query_${reader}`);
    // Another account's view reading this public one breaks too, and its view is public: named.
    await upsert('result_dep_theirs', 'select v from mv.local.result_dep_mid', otherKey);

    const mid = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_dep_mid'));
    expect(mid.dependents).toEqual([
      'mv.local.result_dep_down',
      'mv.local.result_dep_side',
      'mv.local.result_dep_via',
      'mv.outsider.result_dep_theirs',
    ]);
    expect(
      (await bodyOf(await host.call('/v1/materialized-views/mv.local.result_dep_other'))).dependents,
    ).toEqual([]);

    const deleted = await host.call('/v1/materialized-views/mv.local.result_dep_mid', { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await bodyOf(deleted)).toEqual({
      message: 'ok',
      dependents: [
        'mv.local.result_dep_down',
        'mv.local.result_dep_side',
        'mv.local.result_dep_via',
        'mv.outsider.result_dep_theirs',
      ],
      warning: expect.stringMatching(
        /^These views read mv\.local\.result_dep_mid: mv\.local\.result_dep_down, .*fail until mv\.local\.result_dep_mid is created again/,
      ),
    });
    expect((await host.call('/v1/materialized-views/mv.local.result_dep_mid')).status).toBe(404);
  });

  it('refuses a schedule whose lineage has a cycle, naming it (every scheduled refresh would fail)', async () => {
    const a = await createQuery('select 1 as v');
    const first = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_cyc_a', query_id: a } }),
    );
    await waitUntilFinished(host, first.execution_id);
    const b = await createQuery('select v from mv.local.result_cyc_a');
    const second = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_cyc_b', query_id: b } }),
    );
    await waitUntilFinished(host, second.execution_id);
    await host.call(`/v1/query/${a}`, {
      method: 'PATCH',
      json: { query_sql: 'select v + 1 as v from mv.local.result_cyc_b' },
    });
    for (const [name, queryId, cycle] of [
      ['result_cyc_a', a, 'mv.local.result_cyc_a → mv.local.result_cyc_b → mv.local.result_cyc_a'],
      ['result_cyc_b', b, 'mv.local.result_cyc_b → mv.local.result_cyc_a → mv.local.result_cyc_b'],
    ] as const) {
      const response = await host.call('/v1/materialized-views', {
        json: { name, query_id: queryId, cron_expression: '0 * * * *' },
      });
      expect(response.status, name).toBe(400);
      expect((await bodyOf(response)).error).toBe(
        `mv.local.${name} cannot be scheduled: a scheduled refresh refreshes the views it reads first, and its lineage has a cycle: ${cycle}. A materialized view cannot depend on itself; refresh it with POST /v1/materialized-views/mv.local.${name}/refresh, or change a query of the cycle.`,
      );
      // Nothing was changed: the view keeps no schedule.
      expect(
        (await bodyOf(await host.call(`/v1/materialized-views/mv.local.${name}`))).schedule,
      ).toBeUndefined();
    }
    // A new view whose query reads the view itself.
    const self = await createQuery('select count(*) as n from mv.local.result_reads_itself');
    const selfRead = await host.call('/v1/materialized-views', {
      json: { name: 'result_reads_itself', query_id: self, cron_expression: '0 * * * *' },
    });
    expect(selfRead.status).toBe(400);
    expect((await bodyOf(selfRead)).error).toMatch(
      /lineage has a cycle: mv\.local\.result_reads_itself → mv\.local\.result_reads_itself\./,
    );
    expect((await host.call('/v1/materialized-views/mv.local.result_reads_itself')).status).toBe(404);
    // Without a schedule a view of the cycle still refreshes on its own.
    expect(
      (await host.call('/v1/materialized-views', { json: { name: 'result_cyc_a', query_id: a } })).status,
    ).toBe(200);
  });

  it("keeps a view's query without parameters: PATCH adding some is a 409 naming the view, and a refresh never sends a {{placeholder}}", async () => {
    const queryId = await createQuery('select 1 as x');
    const created = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_param_guard', query_id: queryId } }),
    );
    await waitUntilFinished(host, created.execution_id);
    const withParameter = { key: 'n', type: 'number', value: '1' };
    for (const edit of [
      { query_sql: 'select {{n}} as x', parameters: [withParameter] },
      { parameters: [withParameter] },
    ]) {
      const response = await host.call(`/v1/query/${queryId}`, { method: 'PATCH', json: edit });
      expect(response.status, JSON.stringify(edit)).toBe(409);
      expect((await bodyOf(response)).error).toBe(
        `Query ${queryId} backs the materialized view mv.local.result_param_guard, and a view's query cannot take parameters: keep the query without parameters, or delete the view first (DELETE /v1/materialized-views/mv.local.result_param_guard) and save the parameters then.`,
      );
    }
    // Other edits go through.
    const renamed = await host.call(`/v1/query/${queryId}`, {
      method: 'PATCH',
      json: { name: 'still a view', query_sql: 'select 2 as x' },
    });
    expect(renamed.status).toBe(200);
    // Parameters that reached the query anyway (written before this rule) are refused at refresh,
    // with the way out, instead of the engine's error about a {{placeholder}}.
    const current = (await host.services.queries.get(queryId))!;
    await host.services.queries.update(
      queryId,
      current.version,
      { querySql: 'select {{n}} as x', parameters: [{ key: 'n', type: 'number', value: '1' }] },
      new Date().toISOString(),
    );
    const refresh = await host.call('/v1/materialized-views/mv.local.result_param_guard/refresh', {
      method: 'POST',
    });
    expect(refresh.status).toBe(400);
    expect((await bodyOf(refresh)).error).toBe(
      `Query ${queryId} behind mv.local.result_param_guard has parameters (n), and a materialized view needs a query without parameters: remove them with PATCH /v1/query/${queryId}, or delete the view.`,
    );
    // Once the view is gone the query may take parameters.
    await host.call('/v1/materialized-views/mv.local.result_param_guard', { method: 'DELETE' });
    expect(
      (
        await host.call(`/v1/query/${queryId}`, {
          method: 'PATCH',
          json: { query_sql: 'select {{n}} + 1 as x', parameters: [withParameter] },
        })
      ).status,
    ).toBe(200);
  });

  it('says a view that has not completed a refresh has nothing to read yet, rather than that it does not exist', async () => {
    const failing = await createQuery("select cast('boom' as integer) as x", { is_private: false });
    const created = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: { name: 'result_never_refreshed', query_id: failing, is_private: false },
      }),
    );
    expect((await waitUntilFinished(host, created.execution_id)).state).toBe('QUERY_STATE_FAILED');
    const own = await readValue('select count(*) as n from mv.local.result_never_refreshed');
    expect(own.state).toBe('QUERY_STATE_FAILED');
    expect(own.error.message).toMatch(
      /^Table mv\.local\.result_never_refreshed has not completed a refresh yet, so it has no rows to read: refresh it with POST \/v1\/materialized-views\/mv\.local\.result_never_refreshed\/refresh and run this once the refresh completed/,
    );
    // Another account may read the public view but not refresh it: its owner does.
    const other = await readValue('select * from "MV"."LOCAL"."RESULT_NEVER_REFRESHED"', otherKey);
    expect(other.error.message).toMatch(
      /^Table mv\.local\.result_never_refreshed has not completed a refresh yet, so it has no rows to read: its owner refreshes it; run this once a refresh completed\./,
    );
    // A view that does not exist still does not exist.
    const missing = await readValue('select * from mv.local.result_never_made');
    expect(missing.error.message).toMatch(/^Table mv\.local\.result_never_made does not exist/);
  });

  it("points Dune's dune.<team>.result_<name> to the view's name here, mv.<owner>.result_<name>", async () => {
    const queryId = await createQuery('select 4 as four');
    const created = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_dune_named', query_id: queryId } }),
    );
    await waitUntilFinished(host, created.execution_id);
    const rest = await host.call('/v1/materialized-views/dune.local.result_dune_named');
    expect(rest.status).toBe(404);
    expect((await bodyOf(rest)).error).toBe(
      'Materialized view dune.local.result_dune_named not found. Materialized views are named mv.<owner>.result_<name> here, not dune.<owner>.result_<name> as on Dune: did you mean mv.local.result_dune_named?',
    );
    const unknown = await host.call('/v1/materialized-views/dune.local.result_nothing_here/refresh', {
      method: 'POST',
    });
    expect(unknown.status).toBe(404);
    expect((await bodyOf(unknown)).error).toMatch(
      /as on Dune \(mv\.local\.result_nothing_here is not one you can read either\)\.$/,
    );
    // An explicit pipeline node names its view the same way.
    const node = await host.call('/v1/pipelines/execute', {
      json: {
        pipeline: {
          nodes: [{ id: 1, materialized_view_refresh: { name: 'dune.local.result_dune_named' } }],
        },
      },
    });
    expect(node.status).toBe(404);
    expect((await bodyOf(node)).error).toMatch(
      /^Node 1 \(dune\.local\.result_dune_named\): .*did you mean mv\.local\.result_dune_named\?$/,
    );
    // The short name is one message saying what to write, not two.
    const short = await host.call('/v1/pipelines/execute', {
      json: { pipeline: { nodes: [{ id: 1, materialized_view_refresh: { name: 'result_dune_named' } }] } },
    });
    expect(short.status).toBe(400);
    const shortError = (await bodyOf(short)).error as string;
    expect(shortError).toMatch(
      /must be a full name, mv\.<owner>\.result_dune_named: result_dune_named alone is the short name the upsert takes$/,
    );
    expect(shortError.match(/must be/g)).toHaveLength(1);
    // In SQL too.
    const sql = await readValue('select count(*) from dune.local.result_dune_named');
    expect(sql.error.message).toMatch(
      /Materialized views are named mv\.<owner>\.result_<name> here, not dune\.<owner>\.result_<name> as on Dune: did you mean mv\.local\.result_dune_named\?/,
    );
  });

  it('refuses bad upserts with a message that says why', async () => {
    const queryId = await createQuery('select 1 as x');
    const withParams = await createQuery('select {{n}} as x', {
      parameters: [{ key: 'n', type: 'number', value: '1' }],
    });
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ name: 'daily', query_id: queryId }, 400, /8-128 characters/],
      [{ name: 'result_Bad_Name', query_id: queryId }, 400, /start with result_/],
      [{ name: 'result_with_params', query_id: withParams }, 400, /needs a query without parameters/],
      [
        { name: 'result_too_often', query_id: queryId, cron_expression: '*/5 * * * *' },
        400,
        /more often than every 15 minutes/,
      ],
      [{ name: 'result_missing', query_id: 999999 }, 404, /not found/],
      // Not a 5-field cron: every form gets the message that shows one.
      ...['@hourly', 'banana', '', '0 0 * * * *'].map((cron): [Record<string, unknown>, number, RegExp] => [
        { name: 'result_bad_cron', query_id: queryId, cron_expression: cron },
        400,
        /^cron_expression must have 5 fields \(minute hour day-of-month month day-of-week\), e\.g\. "0 \* \* \* \*"/,
      ]),
      [
        {
          name: 'result_expired',
          query_id: queryId,
          cron_expression: '0 * * * *',
          expires_at: '2020-01-01T00:00:00Z',
        },
        400,
        /expires_at 2020-01-01T00:00:00Z is not in the future: give a later time, or leave it out/,
      ],
      [
        { name: 'result_expiring', query_id: queryId, expires_at: '2099-01-01T00:00:00Z' },
        400,
        /^expires_at ends scheduled refreshes: give cron_expression too/,
      ],
    ];
    for (const [body, status, message] of cases) {
      const response = await host.call('/v1/materialized-views', { json: body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await bodyOf(response)).error).toMatch(message);
    }
    const owner = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_taken', query_id: queryId } }),
    );
    await waitUntilFinished(host, owner.execution_id);
    const otherQuery = await createQuery('select 2 as x');
    const taken = await host.call('/v1/materialized-views', {
      json: { name: 'result_taken', query_id: otherQuery },
    });
    expect(taken.status).toBe(409);
    const renamed = await host.call('/v1/materialized-views', {
      json: { name: 'result_renamed', query_id: queryId },
    });
    expect(renamed.status).toBe(409);
    expect((await bodyOf(renamed)).error).toMatch(/already materialized as mv\.local\.result_taken/);
    // Another account's public query can be read, not materialized: a view's query is its owner's.
    const publicQuery = await createQuery('select 3 as x', { is_private: false });
    const foreign = await host.call('/v1/materialized-views', {
      apiKey: otherKey,
      json: { name: 'result_borrowed', query_id: publicQuery },
    });
    expect(foreign.status).toBe(403);
    expect((await bodyOf(foreign)).error).toBe(
      `Query ${publicQuery} belongs to another account, and a materialized view needs a query you own (its refreshes run as yours): save its SQL as a query of your own with POST /v1/query, and materialize that.`,
    );
  });
});
