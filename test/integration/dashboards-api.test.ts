import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

async function savedQueryWithResult(host: TestHost, sql: string): Promise<number> {
  const created = await bodyOf(
    await host.call('/v1/query', { json: { name: 'dashboard source', query_sql: sql } }),
  );
  const run = await bodyOf(await host.call(`/v1/query/${created.query_id}/execute`, { method: 'POST' }));
  expect((await waitUntilFinished(host, run.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
  return created.query_id;
}

/** The SVG documents embedded in the page as data: URIs. */
function embeddedSvgs(html: string): string[] {
  return [...html.matchAll(/src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)"/g)].map((m) =>
    Buffer.from(m[1]!, 'base64').toString('utf8'),
  );
}

describe('dashboards over REST and the dashboard page', () => {
  let host: TestHost;
  let otherKey: string;
  let chartId: number;
  let counterId: number;
  let tableId: number;
  let sourceQueryId: number;

  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'dash_other');
    const queryId = await savedQueryWithResult(
      host,
      "select blockchain, count(*) as trades, '<img src=x onerror=alert(1)>' as evil from dex.trades group by 1 order by 1",
    );
    sourceQueryId = queryId;
    const viz = async (body: Json) =>
      (await bodyOf(await host.call(`/v1/query/${queryId}/visualizations`, { json: body }))).id as number;
    chartId = await viz({
      name: 'Trades by chain',
      type: 'chart',
      options: { globalSeriesType: 'bar', columnMapping: { blockchain: 'x', trades: 'y' } },
    });
    counterId = await viz({ name: 'Trades', type: 'counter', options: { counterColName: 'trades' } });
    tableId = await viz({ name: 'Rows', type: 'table', options: {} });
  });
  afterAll(() => host?.stop());

  const create = (body: Json, apiKey?: string) =>
    host.call('/v1/dashboards', { json: body, ...(apiKey ? { apiKey } : {}) });

  it('creates a dashboard with auto layout: text full width on top, then a grid', async () => {
    const response = await create({
      name: 'DEX overview',
      visualization_ids: [chartId, counterId, tableId],
      text_widgets: [{ text: '# Overview\nTrades per chain.' }],
    });
    expect(response.status).toBe(200);
    const dashboard = await bodyOf(response);
    expect(dashboard).toMatchObject({ name: 'DEX overview', slug: 'dex-overview', columns_per_row: 2 });
    expect(dashboard.text_widgets).toEqual([
      {
        widget_id: 1,
        text: '# Overview\nTrades per chain.',
        position: { row: 0, col: 0, size_x: 6, size_y: 2 },
      },
    ]);
    expect(dashboard.visualization_widgets.map((w: Json) => [w.visualization_id, w.position])).toEqual([
      [chartId, { row: 2, col: 0, size_x: 3, size_y: 8 }],
      [counterId, { row: 2, col: 3, size_x: 3, size_y: 8 }],
      [tableId, { row: 10, col: 0, size_x: 3, size_y: 8 }],
    ]);
    expect(dashboard.dashboard_url).toMatch(
      new RegExp(`^${host.baseUrl}/dashboards/${dashboard.dashboard_id}\\?key=[A-Za-z0-9_-]{32}$`),
    );

    const read = await bodyOf(await host.call(`/v1/dashboards/${dashboard.dashboard_id}`));
    expect(read.visualization_widgets).toEqual(dashboard.visualization_widgets);
    expect(read.dashboard_url).toBe(`${host.baseUrl}/dashboards/${dashboard.dashboard_id}`);

    const three = await bodyOf(
      await create({ name: 'Wide', visualization_ids: [chartId, counterId], columns_per_row: 3 }),
    );
    expect(three.visualization_widgets[1].position).toEqual({ row: 0, col: 2, size_x: 2, size_y: 8 });
  });

  it('serves the page without an API key: escaped text, the charts as SVG, tables as escaped HTML', async () => {
    const dashboard = await bodyOf(
      await create({
        name: 'Page <test>',
        visualization_ids: [chartId, counterId, tableId],
        text_widgets: [{ text: '## Notes\n<script>alert("x")</script> **bold**\n- item one' }],
      }),
    );
    const response = await fetch(dashboard.dashboard_url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>Page &lt;test&gt;</title>');
    expect(html).toContain('<h3>Notes</h3>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; <strong>bold</strong>');
    expect(html).toContain('<li>item one</li>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;'); // the table cell
    const svgs = embeddedSvgs(html);
    expect(svgs).toHaveLength(2);
    expect(svgs[0]!.startsWith('<svg')).toBe(true);
    expect(svgs[0]).toContain('mark-rect');
    expect(svgs[0]).toContain('ethereum');
    expect(svgs[1]).toContain('class="marks counter"');
    expect(html).toContain(`data-visualization-id="${chartId}"`);

    const url = new URL(dashboard.dashboard_url);
    const wrong = await fetch(`${url.origin}${url.pathname}?key=wrong-token`);
    expect(wrong.status).toBe(404);
    expect(await wrong.text()).toContain('Dashboard not found');
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(404);
    expect((await fetch(`${url.origin}/dashboards/999999?key=${url.searchParams.get('key')}`)).status).toBe(
      404,
    );
  });

  it('PATCH replaces all widgets, re-lays out on columns_per_row, rotates the share link', async () => {
    const dashboard = await bodyOf(
      await create({
        name: 'Patch me',
        visualization_ids: [chartId, counterId],
        text_widgets: [{ text: 'hello' }],
      }),
    );
    const id = dashboard.dashboard_id;
    const patch = (json: Json) => host.call(`/v1/dashboards/${id}`, { method: 'PATCH', json });

    const replaced = await bodyOf(await patch({ visualization_ids: [counterId] }));
    expect(replaced.text_widgets).toEqual([]);
    expect(replaced.visualization_widgets).toEqual([
      { widget_id: 1, visualization_id: counterId, position: { row: 0, col: 0, size_x: 3, size_y: 8 } },
    ]);
    const oneWide = await bodyOf(await patch({ columns_per_row: 1, name: 'Renamed' }));
    expect(oneWide.name).toBe('Renamed');
    expect(oneWide.visualization_widgets[0].position).toEqual({ row: 0, col: 0, size_x: 6, size_y: 8 });
    const placed = await bodyOf(
      await patch({
        visualization_widgets: [
          { visualization_id: chartId, position: { row: 5, col: 1, size_x: 4, size_y: 6 } },
        ],
        text_widgets: [{ text: 'top' }],
      }),
    );
    expect(placed.visualization_widgets[0].position).toEqual({ row: 5, col: 1, size_x: 4, size_y: 6 });

    expect((await fetch(dashboard.dashboard_url)).status).toBe(200);
    const rotated = await bodyOf(await patch({ rotate_share_token: true }));
    expect(rotated.dashboard_url).not.toBe(dashboard.dashboard_url);
    expect((await fetch(dashboard.dashboard_url)).status).toBe(404);
    expect((await fetch(rotated.dashboard_url)).status).toBe(200);

    // A deleted visualization leaves a notice in its place, the rest of the page still renders.
    const doomed = await bodyOf(
      await host.call(`/v1/query/${sourceQueryId}/visualizations`, {
        json: { name: 'doomed', type: 'counter', options: { counterColName: 'trades' } },
      }),
    );
    await patch({ visualization_ids: [doomed.id, counterId] });
    await host.call(`/v1/visualizations/${doomed.id}`, { method: 'DELETE' });
    const withGap = await (await fetch(rotated.dashboard_url)).text();
    expect(withGap).toContain(`Visualization ${doomed.id} not found.`);
    expect(embeddedSvgs(withGap)).toHaveLength(1);

    const nothing = await patch({});
    expect(nothing.status).toBe(400);
    expect((await bodyOf(nothing)).error).toMatch(/Nothing to change/);
    const bothLists = await patch({
      visualization_ids: [counterId],
      visualization_widgets: [{ visualization_id: counterId }],
    });
    expect(bothLists.status).toBe(400);
    expect((await bodyOf(bothLists)).error).toMatch(/not both/);
    const longText = Array.from({ length: 11 }, () => ({ text: 'x'.repeat(10_000) }));
    const tooMuchText = await patch({ text_widgets: longText });
    expect(tooMuchText.status).toBe(400);
    expect((await bodyOf(tooMuchText)).error).toMatch(/at most 100000 characters in all; these hold 110000/);
    expect((await create({ name: 'long', text_widgets: longText })).status).toBe(400);
    const unknownViz = await patch({ visualization_ids: [987654] });
    expect(unknownViz.status).toBe(404);
    expect((await bodyOf(unknownViz)).error).toMatch(/Visualization 987654 not found/);
    expect((await patch({ columns_per_row: 4 })).status).toBe(400);
  });

  it('archive: the page answers 404 and the dashboard can no longer change; other accounts get 404', async () => {
    const dashboard = await bodyOf(await create({ name: 'To archive', visualization_ids: [chartId] }));
    const id = dashboard.dashboard_id;
    expect((await host.call(`/v1/dashboards/${id}`, { apiKey: otherKey })).status).toBe(404);
    expect(
      (await host.call(`/v1/dashboards/${id}`, { method: 'PATCH', json: { name: 'x' }, apiKey: otherKey }))
        .status,
    ).toBe(404);
    expect(
      (await host.call(`/v1/dashboards/${id}/archive`, { method: 'POST', apiKey: otherKey })).status,
    ).toBe(404);

    const archived = await host.call(`/v1/dashboards/${id}/archive`, { method: 'POST' });
    expect(await bodyOf(archived)).toEqual({ ok: true, dashboard_id: id });
    expect((await bodyOf(await host.call(`/v1/dashboards/${id}`))).is_archived).toBe(true);
    const page = await fetch(dashboard.dashboard_url);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Dashboard not found');
    expect((await host.call(`/v1/dashboards/${id}`, { method: 'PATCH', json: { name: 'x' } })).status).toBe(
      403,
    );

    // Another account cannot put a private query's visualization on its dashboard.
    const privateQuery = await bodyOf(
      await host.call('/v1/query', { json: { name: 'p', query_sql: 'select 1 as a', is_private: true } }),
    );
    const run = await bodyOf(
      await host.call(`/v1/query/${privateQuery.query_id}/execute`, { method: 'POST' }),
    );
    await waitUntilFinished(host, run.execution_id);
    const hidden = await bodyOf(
      await host.call(`/v1/query/${privateQuery.query_id}/visualizations`, {
        json: { name: 'c', type: 'counter', options: { counterColName: 'a' } },
      }),
    );
    expect((await create({ name: 'steal', visualization_ids: [hidden.id] }, otherKey)).status).toBe(404);
    expect((await create({ name: 'x', columns_per_row: 0 })).status).toBe(400);
    expect((await host.call('/v1/dashboards', { json: { name: 'x' }, apiKey: null })).status).toBe(401);
  });
});
