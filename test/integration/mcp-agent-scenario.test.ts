/**
 * An agent's session end to end, with the SDK's own `Client` over Streamable HTTP against the
 * local host: find a table, write and run SQL, read the results, chart them, put the chart on a
 * dashboard, read the dashboard back, check what it cost. Every step asserts the tool's
 * `structuredContent` (the client also validates it against the tool's output schema).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** How long the scenario polls getExecutionResults before giving up. */
const RESULTS_DEADLINE_MS = 60_000;

describe('MCP agent scenario: searchTables → … → getUsage', () => {
  let host: TestHost;
  let client: Client;

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
    const result: Json = await client.callTool({ name, arguments: args });
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(result.structuredContent, name).toBeTypeOf('object');
    return result;
  };

  beforeAll(async () => {
    host = await startTestHost();
    client = new Client({ name: 'agent-scenario', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.baseUrl}/mcp/v1`), {
        requestInit: { headers: { 'x-service-api-key': host.apiKey } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await host?.stop();
  });

  it('finds dex.trades, runs a daily volume query, charts it, builds a dashboard and sees the cost', {
    timeout: 120_000,
  }, async () => {
    const before = (await call('getUsage')).structuredContent.creditsUsed as number;

    // 1. Discovery.
    const search = await call('searchTables', { query: 'dex trades', limit: 5 });
    const tables: Json[] = search.structuredContent.tables;
    const trades = tables.find((t) => t.fullName === 'dex.trades');
    expect(trades, JSON.stringify(tables.map((t) => t.fullName))).toBeDefined();
    expect(trades).toMatchObject({ category: expect.any(String), blockchains: expect.any(Array) });
    expect(trades.blockchains).toEqual(expect.arrayContaining(['ethereum', 'base']));

    // 2. Save the query.
    const sql =
      "select date_trunc('day', block_time) as day, blockchain, count(*) as trades, " +
      'sum(amount_usd) as volume_usd from dex.trades group by 1, 2 order by 1, 2';
    const created = await call('createServiceQuery', {
      name: 'DEX volume by day and chain',
      query: sql,
      tags: ['agent'],
    });
    const queryId: number = created.structuredContent.queryId;
    expect(created.structuredContent).toMatchObject({
      queryId: expect.any(Number),
      name: 'DEX volume by day and chain',
      query: sql,
      tags: ['agent'],
    });

    // 3. Run it: a handle comes back at once.
    const run = await call('executeQueryById', { queryId });
    expect(run.structuredContent).toEqual({ executionId: expect.any(String), state: 'QUERY_STATE_PENDING' });
    const { executionId } = run.structuredContent;

    // 4. Poll for the results, as an agent would: short waits, call again until finished.
    const deadline = Date.now() + RESULTS_DEADLINE_MS;
    let page: Json;
    let polls = 0;
    for (;;) {
      polls++;
      page = (await call('getExecutionResults', { executionId, timeoutSeconds: 2, limit: 50 }))
        .structuredContent;
      expect(page.executionId).toBe(executionId);
      if (page.isFinished) break;
      expect(page.state).toMatch(/QUERY_STATE_(PENDING|EXECUTING)/);
      if (Date.now() > deadline) throw new Error(`still ${page.state} after ${polls} polls`);
    }
    expect(page.state, JSON.stringify(page.error)).toBe('QUERY_STATE_COMPLETED');
    expect(page.columns.map((c: Json) => c.name)).toEqual(['day', 'blockchain', 'trades', 'volume_usd']);
    expect(page.totalRowCount).toBeGreaterThan(0);
    expect(page.rows.length).toBeGreaterThan(0);
    expect(page.rows[0]).toMatchObject({ blockchain: expect.any(String), trades: expect.anything() });
    expect(page.csvUrl).toContain(`/v1/execution/${executionId}/results/csv`);
    expect(page.creditsUsed).toBeGreaterThan(0);

    // 5. Chart it: the tool answers with the rendered image.
    const chart = await call('generateVisualization', {
      queryId,
      name: 'Daily DEX volume',
      type: 'chart',
      options: {
        globalSeriesType: 'line',
        columnMapping: { day: 'x', volume_usd: 'y', blockchain: 'series' },
      },
    });
    const visualizationId: number = chart.structuredContent.visualizationId;
    expect(chart.structuredContent).toMatchObject({
      visualizationId: expect.any(Number),
      queryId,
      type: 'chart',
      name: 'Daily DEX volume',
    });
    const image = chart.content.find((c: Json) => c.type === 'image');
    expect(image, JSON.stringify(chart.content.map((c: Json) => c.type))).toBeDefined();
    const bytes = Buffer.from(image.data, 'base64');
    if (image.mimeType === 'image/png') {
      expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
      expect(bytes.length).toBeGreaterThan(1000);
    } else {
      expect(image.mimeType).toBe('image/svg+xml');
      expect(bytes.toString('utf8')).toMatch(/<svg[\s>]/);
    }

    // 6. Put it on a dashboard; the URL with its share key opens without the API key.
    const dashboard = await call('createDashboard', {
      name: 'DEX volume',
      visualizationIds: [visualizationId],
      textWidgets: [{ text: '# DEX volume by chain' }],
      columnsPerRow: 1,
    });
    const { dashboardId, dashboardUrl } = dashboard.structuredContent;
    expect(dashboard.structuredContent).toMatchObject({
      dashboardId: expect.any(Number),
      name: 'DEX volume',
      columnsPerRow: 1,
      isArchived: false,
      shareLinkIncluded: true,
    });
    expect(dashboardUrl).toMatch(new RegExp(`^${host.baseUrl}/dashboards/${dashboardId}\\?key=.+`));
    const pageHtml = await fetch(dashboardUrl);
    expect(pageHtml.status).toBe(200);
    expect(await pageHtml.text()).toContain('data:image/svg+xml;base64,');

    // 7. Read it back.
    const read = await call('getDashboard', { dashboardId });
    expect(read.structuredContent).toMatchObject({
      dashboardId,
      name: 'DEX volume',
      shareLinkIncluded: false,
      visualizationWidgets: [
        { visualizationId, position: { row: expect.any(Number), col: 0, sizeX: 6, sizeY: 8 } },
      ],
      textWidgets: [{ text: '# DEX volume by chain', position: { row: 0, col: 0, sizeX: 6 } }],
    });
    expect(read.structuredContent.dashboardUrl).not.toContain('key=');

    // 8. What it cost.
    const usage = await call('getUsage');
    expect(usage.structuredContent).toMatchObject({
      billingPeriod: { startDate: expect.stringMatching(/^\d{4}-\d{2}-01$/), endDate: expect.any(String) },
      creditsIncluded: expect.any(Number),
    });
    expect(usage.structuredContent.creditsUsed).toBeGreaterThan(0);
    expect(usage.structuredContent.creditsUsed).toBeGreaterThan(before);
  });
});
