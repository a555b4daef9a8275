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

  for (const [label, name, described] of [
    ['missing', undefined, 'got missing'],
    ['a number', 3, 'got a number (3)'],
  ] as const) {
    it(`a tool name that is ${label} gets -32602 Invalid params saying what to send`, async () => {
      const response = await call({ ...(name === undefined ? {} : { name }), arguments: {} });
      expect(response.status).toBe(200);
      const body: Json = await response.json();
      expect(body.id).toBe(7);
      expect(body.error.code).toBe(-32602);
      expect(body.error.message).toContain(
        `tools/call needs "name", the tool's name as a string (${described})`,
      );
      expect(body.error.message).toContain('tools/list gives the names');
      expect(body.error.message).not.toMatch(/invalid_type|expected/);
    });
  }

  /**
   * Input validation errors are tool execution errors (MCP spec 2025-11-25, tools: "Error
   * Handling"), so the model sees them and corrects its call; their text reads as one, not as
   * the SDK's `MCP error -32602: Input validation error: …` that hosts and testers took for a
   * protocol error.
   */
  for (const [label, params, text] of [
    [
      'a wrong argument type',
      { name: 'getTableSize', arguments: { tables: [{ table: 'dex.trades' }] } },
      'Invalid arguments for getTableSize: tables[0]: Invalid input: expected string, received object. ' +
        "tools/list gives its inputSchema with every argument's name and type.",
    ],
    [
      'an unknown argument',
      { name: 'getTableSize', arguments: { tables: ['dex.trades'], table: 'dex.trades' } },
      'Invalid arguments for getTableSize: Unknown argument "table": getTableSize takes tables, columns, startTime, endTime. Did you mean tables? ' +
        "tools/list gives its inputSchema with every argument's name and type.",
    ],
    [
      'a malformed executionId',
      { name: 'getExecutionResults', arguments: { executionId: 'nope' } },
      'Invalid arguments for getExecutionResults: executionId: must be the 26-character ULID a run returned, e.g. 01HKZJ2683PHF9Q9PHHQ8FW4Q1. ' +
        "tools/list gives its inputSchema with every argument's name and type.",
    ],
    [
      'an unknown tool',
      { name: 'searchTabels', arguments: { query: 'dex' } },
      'Unknown tool searchTabels: this server has no tool by that name. Did you mean searchTables? tools/list gives the tools this connection offers.',
    ],
  ] as const) {
    it(`${label} is an isError tool result the model can act on, not a protocol error`, async () => {
      const response = await call(params);
      expect(response.status).toBe(200);
      const body: Json = await response.json();
      expect(body.error).toBeUndefined();
      expect(body.result).toEqual({ content: [{ type: 'text', text }], isError: true });
    });
  }

  it('several problems are listed together, each at its argument', async () => {
    const body: Json = await (
      await call({ name: 'getTableSize', arguments: { tables: [1, 'dex.trades'], startTime: 5 } })
    ).json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toMatch(
      /^Invalid arguments for getTableSize: tables\[0\]: Invalid input: expected string, received number; startTime: [^;]+\. tools\/list/,
    );
  });

  it('an empty batch gets one Invalid Request error (-32600), as JSON-RPC 2.0 says', async () => {
    const response = await post([]);
    expect(response.status).toBe(400);
    const body: Json = await response.json();
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('the batch is empty') },
    });
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

  // The handler parses a body once and hands it to the transport; what it cannot parse, or what
  // is longer than the SDK's limit, still reaches the transport raw and gets the SDK's answers.
  const postRaw = (body: string, accept = 'application/json') =>
    fetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: {
        'x-service-api-key': host.apiKey,
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-06-18',
        accept,
      },
      body,
    });

  it('a body that is not JSON gets a JSON-RPC parse error (-32700)', async () => {
    const response = await postRaw('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(response.status).toBe(400);
    const body: Json = await response.json();
    expect(body.error.code).toBe(-32700);
  });

  it('a body over 4 MiB is refused with 413 and stores nothing', async () => {
    const sql = `select '${'x'.repeat(4 * 1024 * 1024)}' as big`;
    const response = await postRaw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'createServiceQuery', arguments: { name: 'too big', query: sql } },
      }),
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as Json).error.message).toMatch(/Payload Too Large/);
    const listed: Json = await (await host.call('/v1/queries?limit=100')).json();
    expect(listed.queries.map((q: Json) => q.name)).not.toContain('too big');
  });

  it('a batch gets every answer in one JSON response, and notifications alone get 202', async () => {
    const response = await postRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'getUsage', arguments: {} } },
        { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
      ]),
    );
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Json[];
    expect(answers.map((answer) => answer.id).sort()).toEqual(['a', 'b']);
    expect(answers.find((answer) => answer.id === 'b')!.result.tools.length).toBe(20);
    const notified = await postRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');
  });

  it('a message that is JSON but not JSON-RPC gets -32700 from the transport', async () => {
    const response = await postRaw(JSON.stringify({ hello: 'world' }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).error.code).toBe(-32700);
  });
});
