import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

/** Issue 12 item 6: the exact triggers, sent raw (the SDK client would refuse to send them). */
describe('MCP tools/call with malformed arguments, and Accept forms', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const post = (message: unknown, accept = 'application/json, text/event-stream') =>
    fetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: { 'x-service-api-key': host.apiKey, 'content-type': 'application/json', accept },
      body: JSON.stringify(message),
    });
  const call = (params: unknown, accept?: string) =>
    post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }, accept);

  for (const [label, value, described] of [
    ['null', null, 'not null'],
    ['an array', [1, 2], 'not a list'],
    ['a string', 'queryId=1', 'not a string'],
    ['a number', 42, 'not a number'],
  ] as const) {
    it(`arguments as ${label} give an isError result that says what to send`, async () => {
      const response = await call({ name: 'getServiceQuery', arguments: value });
      expect(response.status).toBe(200);
      const body: Json = await response.json();
      expect(body.id).toBe(7);
      expect(body.error).toBeUndefined();
      expect(body.result.isError).toBe(true);
      const text: string = body.result.content[0].text;
      expect(text).toContain('Invalid tools/call of getServiceQuery: arguments must be a JSON object');
      expect(text).toContain(described);
      expect(text).toMatch(/tools\/list gives each tool's inputSchema/);
    });
  }

  it('params that are not an object get the same kind of answer', async () => {
    const body: Json = await (await call(null)).json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toMatch(/params must be an object \{"name": \.\.\., "arguments"/);
  });

  it('a well-formed call still reaches the tool', async () => {
    const body: Json = await (await call({ name: 'getUsage', arguments: {} }, 'application/json')).json();
    expect(body.result.isError).toBeFalsy();
    expect(body.result.structuredContent.creditsIncluded).toBeGreaterThan(0);
  });

  it('Accept: text/event-stream alone gets an SSE answer, as docs/mcp.md says', async () => {
    const response = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      'text/event-stream',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(await response.text()).toMatch(/^data: .*"serverInfo":\{"name":"service"/m);
  });
});
