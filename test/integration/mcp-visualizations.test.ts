import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const TOOLS = [
  'archiveDashboard',
  'createDashboard',
  'deleteVisualization',
  'generateVisualization',
  'getDashboard',
  'getVisualization',
  'listQueryVisualizations',
  'updateDashboard',
  'updateVisualization',
];

describe('MCP visualization and dashboard tools over Streamable HTTP', () => {
  let host: TestHost;
  let client: Client;
  let queryId: number;

  async function connect(apiKey: string): Promise<Client> {
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${host.baseUrl}/mcp/v1`), {
        requestInit: { headers: { 'x-service-api-key': apiKey } },
      }),
    );
    return c;
  }
  const call = (name: string, args: Record<string, unknown> = {}, c = client): Promise<Json> =>
    c.callTool({ name, arguments: args });

  beforeAll(async () => {
    host = await startTestHost();
    client = await connect(host.apiKey);
    const created = await call('createServiceQuery', {
      name: 'daily trades',
      query:
        "select date_trunc('day', block_time) as day, blockchain, count(*) as trades from dex.trades group by 1, 2",
    });
    queryId = created.structuredContent.queryId;
    const run = await call('executeQueryById', { queryId });
    const results = await call('getExecutionResults', {
      executionId: run.structuredContent.executionId,
      timeoutSeconds: 20,
    });
    expect(results.structuredContent.state).toBe('QUERY_STATE_COMPLETED');
  });
  afterAll(async () => {
    await client?.close();
    await host?.stop();
  });

  it('registers the tools with schemas, annotations and model-facing descriptions', async () => {
    const { tools } = await client.listTools();
    const mine = tools.filter((t) => TOOLS.includes(t.name));
    expect(mine.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of mine) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
    }
  });

  it('generateVisualization returns the visualization and its rendered image', async () => {
    const generated = await call('generateVisualization', {
      queryId,
      name: 'Daily trades',
      type: 'chart',
      options: { globalSeriesType: 'line', columnMapping: { day: 'x', trades: 'y', blockchain: 'series' } },
    });
    expect(generated.isError).toBeFalsy();
    expect(generated.structuredContent).toMatchObject({ queryId, type: 'chart', name: 'Daily trades' });
    expect(generated.structuredContent.imageUrl).toContain('/image.svg');
    const image = generated.content.find((c: Json) => c.type === 'image');
    expect(image.mimeType).toBe('image/png');
    expect([...Buffer.from(image.data, 'base64').subarray(0, 8)]).toEqual(PNG_SIGNATURE);

    const id = generated.structuredContent.visualizationId;
    const read = await call('getVisualization', { visualizationId: id });
    expect(read.content.some((c: Json) => c.type === 'image')).toBe(true);
    const updated = await call('updateVisualization', {
      visualizationId: id,
      options: {
        globalSeriesType: 'area',
        columnMapping: { day: 'x', trades: 'y', blockchain: 'series' },
        series: { stacking: 'stack' },
      },
    });
    expect(updated.structuredContent.options.globalSeriesType).toBe('area');
    const listed = await call('listQueryVisualizations', { queryId });
    expect(listed.structuredContent.visualizations.map((v: Json) => v.visualizationId)).toContain(id);

    const bad = await call('generateVisualization', {
      queryId,
      name: 'bad',
      type: 'chart',
      options: { globalSeriesType: 'column', columnMapping: { date: 'x', trades: 'y' } },
    });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(
      /no column "date".*day \(timestamp\(3\)\), blockchain \(varchar\), trades \(bigint\)/,
    );

    // The published schema is a plain object; options are still checked as before.
    for (const options of [[], 'line']) {
      const notAnObject = await call('generateVisualization', {
        queryId,
        name: 'bad',
        type: 'chart',
        options,
      });
      expect(notAnObject.isError).toBe(true);
      expect(notAnObject.content[0].text).toMatch(
        /^Invalid arguments for generateVisualization: options: Invalid input: expected object, received \w+\./,
      );
    }

    const table = await call('generateVisualization', { queryId, name: 'rows', type: 'table', options: {} });
    expect(table.content.some((c: Json) => c.type === 'image')).toBe(false);
    const removed = await call('deleteVisualization', {
      visualizationId: table.structuredContent.visualizationId,
    });
    expect(removed.structuredContent).toEqual({
      ok: true,
      visualizationId: table.structuredContent.visualizationId,
    });
    expect(
      (await call('getVisualization', { visualizationId: table.structuredContent.visualizationId })).isError,
    ).toBe(true);
  });

  it('createDashboard returns a dashboard_url that opens without an API key; get, update, archive', async () => {
    const counter = await call('generateVisualization', {
      queryId,
      name: 'Trades',
      type: 'counter',
      options: { counterColName: 'trades', counterLabel: 'trades on the first day' },
    });
    const image = counter.content.find((c: Json) => c.type === 'image');
    expect(image).toBeDefined();
    const created = await call('createDashboard', {
      name: 'Agent dashboard',
      visualizationIds: [counter.structuredContent.visualizationId],
      textWidgets: [{ text: '# Made by an agent' }],
    });
    expect(created.isError).toBeFalsy();
    const { dashboardId, dashboardUrl } = created.structuredContent;
    expect(dashboardUrl).toMatch(new RegExp(`/dashboards/${dashboardId}\\?key=`));
    expect(created.content[0].text).toContain(dashboardUrl);
    const page = await fetch(dashboardUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h2>Made by an agent</h2>');
    expect(html).toContain('data:image/svg+xml;base64,');

    const read = await call('getDashboard', { dashboardId });
    expect(read.structuredContent.visualizationWidgets).toHaveLength(1);
    expect(read.structuredContent.shareLinkIncluded).toBe(false);
    const updated = await call('updateDashboard', { dashboardId, textWidgets: [{ text: 'only text' }] });
    expect(updated.structuredContent.visualizationWidgets).toEqual([]);
    expect(updated.structuredContent.textWidgets[0].text).toBe('only text');

    // The operation's rules hold for tool calls too: an empty change, and text over the dashboard's budget.
    const nothing = await call('updateDashboard', { dashboardId });
    expect(nothing.isError).toBe(true);
    expect(nothing.content[0].text).toMatch(/Nothing to change/);
    const tooMuchText = await call('updateDashboard', {
      dashboardId,
      textWidgets: Array.from({ length: 11 }, () => ({ text: 'x'.repeat(10_000) })),
    });
    expect(tooMuchText.isError).toBe(true);
    expect(tooMuchText.content[0].text).toMatch(/at most 100000 characters in all/);
    expect((await call('getDashboard', { dashboardId })).structuredContent.textWidgets[0].text).toBe(
      'only text',
    );

    const other = await createAccount(host.services.accounts, { handle: 'mcp_dash_other' });
    const otherClient = await connect((await createApiKey(host.services.accounts, other.accountId)).apiKey);
    try {
      const peek = await call('getDashboard', { dashboardId }, otherClient);
      expect(peek.isError).toBe(true);
      expect(peek.content[0].text).toMatch(/not found/);
    } finally {
      await otherClient.close();
    }

    const archived = await call('archiveDashboard', { dashboardId });
    expect(archived.structuredContent).toEqual({ ok: true, dashboardId });
    expect((await fetch(dashboardUrl)).status).toBe(404);
    // An archived dashboard's answer does not send the agent to a rotation that would fail.
    const afterwards: string = (await call('getDashboard', { dashboardId })).content[0].text;
    expect(afterwards).toContain('Archived: its page answers 404 and it can no longer be changed.');
    expect(afterwards).not.toContain('rotateShareToken');
  });
});
