import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Saves a query, runs it and waits for it: visualizations need a completed result. */
async function savedQueryWithResult(host: TestHost, sql: string, apiKey?: string): Promise<number> {
  const auth = apiKey ? { apiKey } : {};
  const created = await host.call('/v1/query', { json: { name: 'viz source', query_sql: sql }, ...auth });
  expect(created.status).toBe(200);
  const queryId = (await bodyOf(created)).query_id as number;
  const run = await bodyOf(await host.call(`/v1/query/${queryId}/execute`, { method: 'POST', ...auth }));
  const status = await waitUntilFinished(host, run.execution_id, 20_000, apiKey);
  expect(status.state).toBe('QUERY_STATE_COMPLETED');
  return queryId;
}

describe('visualizations over REST', () => {
  let host: TestHost;
  let otherKey: string;
  let queryId: number;

  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'viz_other');
    queryId = await savedQueryWithResult(
      host,
      "select blockchain, count(*) as trades, sum(amount_usd) as volume, '<b>' || blockchain || '</b>' as label from dex.trades group by 1 order by 1",
    );
  });
  afterAll(() => host?.stop());

  const createViz = (body: Json, id = queryId, apiKey?: string) =>
    host.call(`/v1/query/${id}/visualizations`, { json: body, ...(apiKey ? { apiKey } : {}) });

  it('creates a column chart and serves it as SVG and PNG rendered from the latest result', async () => {
    const created = await createViz({
      name: 'Trades by chain',
      type: 'chart',
      options: { globalSeriesType: 'column', columnMapping: { blockchain: 'x', trades: 'y' } },
    });
    expect(created.status).toBe(200);
    const { id } = await bodyOf(created);
    expect(Number.isInteger(id)).toBe(true);

    const read = await bodyOf(await host.call(`/v1/visualizations/${id}`));
    expect(read).toMatchObject({ id, query_id: queryId, name: 'Trades by chain', type: 'chart' });
    expect(read.options.columnMapping).toEqual({ blockchain: 'x', trades: 'y' });

    const svg = await host.call(`/v1/visualizations/${id}/image.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const text = await svg.text();
    expect(text.startsWith('<svg')).toBe(true);
    expect(text).toContain('mark-rect'); // the bars
    expect(text).toContain('ethereum'); // an axis label from the data
    expect(text).toContain('Trades by chain');

    const png = await host.call(`/v1/visualizations/${id}/image.png`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await png.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(bytes.length).toBeGreaterThan(2_000);

    expect((await host.call(`/v1/visualizations/${id}/image.svg`, { apiKey: null })).status).toBe(401);
  });

  it('renders every chart type; strings from the result come out escaped', async () => {
    for (const globalSeriesType of ['bar', 'line', 'area', 'scatter', 'pie']) {
      const created = await createViz({
        name: `${globalSeriesType} chart`,
        type: 'chart',
        options: { globalSeriesType, columnMapping: { label: 'x', volume: 'y' } },
      });
      expect(created.status, globalSeriesType).toBe(200);
      const { id } = await bodyOf(created);
      const svg = await (await host.call(`/v1/visualizations/${id}/image.svg`)).text();
      expect(svg.startsWith('<svg'), globalSeriesType).toBe(true);
      expect(svg, globalSeriesType).toMatch(/mark-(rect|line|area|symbol|arc)/);
      expect(svg, globalSeriesType).not.toContain('<b>');
      expect(svg, globalSeriesType).toContain('&lt;b&gt;');
    }
  });

  it('draws charts over date_trunc timestamps: a point per day on a line, date labels on weekly bars', async () => {
    const svgOf = async (sql: string, options: Json) => {
      const id = await savedQueryWithResult(host, sql);
      const rows = (await bodyOf(await host.call(`/v1/query/${id}/results`))).result.rows as Json[];
      const created = await createViz({ name: 'by time', type: 'chart', options }, id);
      expect(created.status).toBe(200);
      const svg = await host.call(`/v1/visualizations/${(await bodyOf(created)).id}/image.svg`);
      return { rows, svg: await svg.text() };
    };
    const daily = await svgOf(
      "select date_trunc('day', block_time) as day, count(*) as trades from dex.trades group by 1 order by 1",
      { globalSeriesType: 'line', columnMapping: { day: 'x', trades: 'y' } },
    );
    // Delivered as `2026-11-01 00:00:00.000 UTC`, which the renderer once read as no time at all.
    expect(daily.rows[0].day).toMatch(/^\d{4}-\d{2}-\d{2} 00:00:00\.000 UTC$/);
    expect(daily.rows.length).toBeGreaterThan(1);
    const line = /class="mark-line role-mark[^>]*>\s*<path[^>]*\sd="([^"]+)"/.exec(daily.svg);
    expect(line?.[1]?.match(/[ML]/g)).toHaveLength(daily.rows.length);

    const weekly = await svgOf(
      "select date_trunc('week', block_time) as week, count(*) as trades from dex.trades group by 1 order by 1",
      { globalSeriesType: 'column', columnMapping: { week: 'x', trades: 'y' } },
    );
    const bars = /class="mark-rect role-mark[^>]*>(.*?)<\/g>/.exec(weekly.svg)?.[1] ?? '';
    expect(bars.match(/<path/g)).toHaveLength(weekly.rows.length);
    for (const row of weekly.rows) expect(weekly.svg).toContain(`>${row.week.slice(0, 10)}</text>`);
    expect(weekly.svg).not.toContain('00:00:0');
  });

  it('rejects options naming columns the result does not have, listing the available ones', async () => {
    const bad = await createViz({
      name: 'bad',
      type: 'chart',
      options: { globalSeriesType: 'line', columnMapping: { day: 'x', trades: 'y' } },
    });
    expect(bad.status).toBe(400);
    const { error } = await bodyOf(bad);
    expect(error).toMatch(/options\.columnMapping\.day: no column "day"/);
    expect(error).toContain('blockchain (varchar), trades (bigint)');
    expect(error).toContain('volume');

    const textY = await createViz({
      name: 'bad',
      type: 'chart',
      options: { globalSeriesType: 'line', columnMapping: { trades: 'x', blockchain: 'y' } },
    });
    expect(textY.status).toBe(400);
    expect((await bodyOf(textY)).error).toMatch(/must be numeric.*numeric columns: trades, volume/);

    const badType = await createViz({ name: 'bad', type: 'chart', options: { globalSeriesType: 'donut' } });
    expect(badType.status).toBe(400);
    expect((await bodyOf(badType)).error).toMatch(/options\.globalSeriesType/);

    const badCounter = await createViz({ name: 'bad', type: 'counter', options: { counterColName: 'nope' } });
    expect(badCounter.status).toBe(400);
    expect((await bodyOf(badCounter)).error).toMatch(/counterColName: no column "nope".*trades \(bigint\)/);

    const neverRun = await bodyOf(
      await host.call('/v1/query', { json: { name: 'x', query_sql: 'select 1 as a' } }),
    );
    const noResult = await createViz(
      { name: 'x', type: 'counter', options: { counterColName: 'a' } },
      neverRun.query_id,
    );
    expect(noResult.status).toBe(404);
    expect((await bodyOf(noResult)).error).toMatch(/no completed execution yet/);
  });

  it("refuses a counter's row past the latest result's last row, naming the row count", async () => {
    const rowCount = (await bodyOf(await host.call(`/v1/query/${queryId}/results`))).result.rows.length;
    expect(rowCount).toBeGreaterThan(1);
    const counter = (rowNumber: number) =>
      createViz({ name: 'c', type: 'counter', options: { counterColName: 'trades', rowNumber } });
    const past = await counter(rowCount + 1);
    expect(past.status).toBe(400);
    expect((await bodyOf(past)).error).toBe(
      `options.rowNumber: ${rowCount + 1} is past the last row; query ${queryId}'s latest result has ${rowCount} rows, so rowNumber is 1 to ${rowCount}.`,
    );
    const last = await counter(rowCount);
    expect(last.status).toBe(200);
    const svg = await (await host.call(`/v1/visualizations/${(await bodyOf(last)).id}/image.svg`)).text();
    expect(svg).toMatch(/>[\d,]+</);
    expect(svg).not.toContain('—');
  });

  it('names column types in option errors as results do (varbinary, timestamp(3))', async () => {
    const typed = await savedQueryWithResult(
      host,
      "select date_trunc('week', block_time) as week, token_bought_address as contract_address, count(*) as trades from dex.trades group by 1, 2",
    );
    const bad = await createViz(
      {
        name: 'bad',
        type: 'chart',
        options: { globalSeriesType: 'line', columnMapping: { week: 'x', contract_address: 'y' } },
      },
      typed,
    );
    expect(bad.status).toBe(400);
    const { error } = await bodyOf(bad);
    expect(error).toContain('contract_address is varbinary');
    const missing = await createViz(
      { name: 'bad', type: 'counter', options: { counterColName: 'volume' } },
      typed,
    );
    expect((await bodyOf(missing)).error).toContain(
      'week (timestamp(3)), contract_address (varbinary), trades (bigint)',
    );
  });

  it('says what columnMapping looks like when a chart comes without one, from the columns the request named', async () => {
    const guessed = await createViz({
      name: 'guess',
      type: 'chart',
      options: { globalSeriesType: 'line', x: 'blockchain', y: ['trades', 'volume'] },
    });
    expect(guessed.status).toBe(400);
    expect((await bodyOf(guessed)).error).toBe(
      'options.columnMapping: expected an object mapping each column to its role ("x", "y", "series" or "size"), e.g. {"columnMapping":{"blockchain":"x","trades":"y","volume":"y"}}',
    );
    // Nothing to go by in the request: the result's first column as x, its first numeric one as y.
    const bare = await createViz({ name: 'bare', type: 'chart', options: { globalSeriesType: 'bar' } });
    expect((await bodyOf(bare)).error).toContain('e.g. {"columnMapping":{"blockchain":"x","trades":"y"}}');
  });

  it('renders a counter and stores a table; tables have no image', async () => {
    const counter = await bodyOf(
      await createViz({
        name: 'Trades',
        type: 'counter',
        options: {
          counterColName: 'trades',
          rowNumber: 1,
          stringPrefix: '#',
          counterLabel: 'trades <first chain>',
        },
      }),
    );
    const svg = await (await host.call(`/v1/visualizations/${counter.id}/image.svg`)).text();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toMatch(/>#[\d,]+</);
    expect(svg).toContain('trades &lt;first chain&gt;');

    const table = await createViz({
      name: 'Table',
      type: 'table',
      options: { columns: [{ name: 'blockchain', title: 'Chain' }, { name: 'trades' }] },
    });
    expect(table.status).toBe(200);
    const tableId = (await bodyOf(table)).id;
    const image = await host.call(`/v1/visualizations/${tableId}/image.svg`);
    expect(image.status).toBe(400);
    expect((await bodyOf(image)).error).toMatch(/is a table and has no image/);
    const badTable = await createViz({ name: 'T', type: 'table', options: { columns: [{ name: 'x' }] } });
    expect(badTable.status).toBe(400);
    expect((await bodyOf(badTable)).error).toMatch(/options\.columns\.0\.name: no column "x"/);
  });

  it('lists, patches (options replaced whole) and deletes', async () => {
    const ownQuery = await savedQueryWithResult(
      host,
      'select n, n * n as sq from unnest(sequence(0, 19)) as t (n)',
    );
    const { id } = await bodyOf(
      await createViz(
        {
          name: 'Squares',
          type: 'chart',
          options: {
            globalSeriesType: 'line',
            columnMapping: { n: 'x', sq: 'y' },
            legend: { enabled: false },
          },
        },
        ownQuery,
      ),
    );
    const second = (await bodyOf(await createViz({ name: 'N', type: 'table', options: {} }, ownQuery))).id;
    const list = await bodyOf(await host.call(`/v1/query/${ownQuery}/visualizations`));
    expect(list.total).toBe(2);
    expect(list.visualizations.map((v: Json) => v.id)).toEqual([id, second]);

    const patched = await host.call(`/v1/visualizations/${id}`, {
      method: 'PATCH',
      json: {
        name: 'Squares (area)',
        options: { globalSeriesType: 'area', columnMapping: { n: 'x', sq: 'y' } },
      },
    });
    expect(patched.status).toBe(200);
    const after = await bodyOf(patched);
    expect(after.name).toBe('Squares (area)');
    expect(after.options).toEqual({ globalSeriesType: 'area', columnMapping: { n: 'x', sq: 'y' } });
    const badPatch = await host.call(`/v1/visualizations/${id}`, {
      method: 'PATCH',
      json: { options: { globalSeriesType: 'area', columnMapping: { n: 'x', cube: 'y' } } },
    });
    expect(badPatch.status).toBe(400);
    expect((await bodyOf(badPatch)).error).toContain('n (bigint), sq (bigint)');
    const empty = await host.call(`/v1/visualizations/${id}`, { method: 'PATCH', json: {} });
    expect(empty.status).toBe(400);

    const deleted = await host.call(`/v1/visualizations/${second}`, { method: 'DELETE' });
    expect(await bodyOf(deleted)).toEqual({ ok: true, id: second });
    expect((await host.call(`/v1/visualizations/${second}`)).status).toBe(404);
    expect((await bodyOf(await host.call(`/v1/query/${ownQuery}/visualizations`))).total).toBe(1);
  });

  it("hides private queries' visualizations from other accounts and keeps public ones read-only", async () => {
    const privateQuery = await bodyOf(
      await host.call('/v1/query', { json: { name: 'p', query_sql: 'select 1 as a', is_private: true } }),
    );
    const run = await bodyOf(
      await host.call(`/v1/query/${privateQuery.query_id}/execute`, { method: 'POST' }),
    );
    await waitUntilFinished(host, run.execution_id);
    const hidden = (
      await bodyOf(
        await createViz(
          { name: 'c', type: 'counter', options: { counterColName: 'a' } },
          privateQuery.query_id,
        ),
      )
    ).id;
    expect((await host.call(`/v1/visualizations/${hidden}`, { apiKey: otherKey })).status).toBe(404);
    expect((await host.call(`/v1/visualizations/${hidden}/image.svg`, { apiKey: otherKey })).status).toBe(
      404,
    );

    const publicViz = (await bodyOf(await host.call(`/v1/query/${queryId}/visualizations`)))
      .visualizations[0];
    expect((await host.call(`/v1/visualizations/${publicViz.id}`, { apiKey: otherKey })).status).toBe(200);
    const patch = await host.call(`/v1/visualizations/${publicViz.id}`, {
      method: 'PATCH',
      json: { name: 'mine now' },
      apiKey: otherKey,
    });
    expect(patch.status).toBe(403);
    const remove = await host.call(`/v1/visualizations/${publicViz.id}`, {
      method: 'DELETE',
      apiKey: otherKey,
    });
    expect(remove.status).toBe(403);
    const onTheirs = await createViz(
      { name: 'x', type: 'counter', options: { counterColName: 'trades' } },
      queryId,
      otherKey,
    );
    expect(onTheirs.status).toBe(403);
  });
});
