/**
 * A single JSON-RPC request answered as JSON goes through the pooled server's own exchange
 * transport (functions/mcp/json-exchange.ts); everything else through the SDK's Streamable HTTP
 * transport. This shows that a server switches between the two cleanly, that concurrent requests
 * with the same JSON-RPC id each get their own answer, that a call cut at the deadline on the
 * exchange path answers with a tool error and its server is not reused, and which requests take
 * which path.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directExchangeRequest, JsonExchangeTransport } from '../../functions/mcp/json-exchange';
import { crossJoinSql } from '../support/runaway-sql';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

const JSON_HEADERS = { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

describe('MCP JSON exchange path', () => {
  let host: TestHost;
  let nextId = 1;

  const post = (body: Json, accept = 'application/json') =>
    fetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: { 'x-service-api-key': host.apiKey, accept, ...JSON_HEADERS },
      body: JSON.stringify(body),
    });
  const call = (name: string, args: Json, extra: Json = {}) =>
    post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args }, ...extra });
  const structured = async (response: Response): Promise<Json> => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await response.json()) as Json;
    expect(body.result?.isError).toBeFalsy();
    return body.result.structuredContent;
  };

  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('answers every kind of request in turn on the same pooled server', async () => {
    const chains = await structured(await call('listBlockchains', {}));
    expect(chains.blockchains.length).toBeGreaterThan(0);
    // initialize goes through the SDK's transport (the server's exchange transport is closed first).
    const init = await post({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(((await init.json()) as Json).result.serverInfo.name).toBe('service');
    // Back on the exchange path.
    expect((await structured(await call('searchTables', { query: 'swap' }))).total).toBeGreaterThan(0);
    // A request asking for progress is streamed by the SDK's transport.
    const streamed = await post(
      {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: { name: 'listBlockchains', arguments: {}, _meta: { progressToken: 'p' } },
      },
      'application/json, text/event-stream',
    );
    expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(await streamed.text()).toContain('"blockchains"');
    // A batch: the SDK's transport, one JSON array.
    const batch = await post([
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ]);
    const answers = (await batch.json()) as Json[];
    expect(answers.map((answer) => answer.id).sort()).toEqual(['a', 'b']);
    // tools/list and ping on the exchange path too.
    const listed = (await (
      await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' })
    ).json()) as Json;
    expect(listed.result.tools).toHaveLength(20);
    const ping = (await (await post({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' })).json()) as Json;
    expect(ping).toEqual({ jsonrpc: '2.0', id: 'ping-1', result: {} });
    // An unknown method is the SDK's own JSON-RPC error, with the request's id.
    const unknown = (await (await post({ jsonrpc: '2.0', id: 7, method: 'no/such' })).json()) as Json;
    expect(unknown).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('gives concurrent requests with the same id each their own answer', async () => {
    const queries = ['swap', 'transfer', 'prices', 'blocks', 'trades', 'erc20'];
    const responses = await Promise.all(
      queries.map((query) =>
        post({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'searchTables', arguments: { query } },
        }),
      ),
    );
    const texts = await Promise.all(responses.map(async (response) => (await response.json()) as Json));
    for (const [i, answer] of texts.entries()) {
      expect(answer.id).toBe(1);
      const expected = await structured(await call('searchTables', { query: queries[i] }));
      expect(answer.result.structuredContent).toEqual(expected);
    }
  });

  it('cuts a JSON call at the deadline with a tool error, and later calls still work', async () => {
    const created = await structured(
      await call('createServiceQuery', { name: 'slow', query: crossJoinSql(30000 * 30000) }),
    );
    const run = await structured(await call('executeQueryById', { queryId: created.queryId }));
    process.env.MCP_REQUEST_DEADLINE_MS = '500';
    try {
      const started = Date.now();
      const response = await call('getExecutionResults', {
        executionId: run.executionId,
        timeoutSeconds: 20,
      });
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      const answer = (await response.json()) as Json;
      expect(Date.now() - started).toBeLessThan(5000);
      expect(answer.result.isError).toBe(true);
      expect(answer.result.content[0].text).toMatch(/Stopped after 0.5 s/);
    } finally {
      delete process.env.MCP_REQUEST_DEADLINE_MS;
    }
    const cancel = await fetch(`${host.baseUrl}/v1/execution/${run.executionId}/cancel`, {
      method: 'POST',
      headers: { 'x-service-api-key': host.apiKey },
    });
    expect(cancel.status).toBe(200);
    expect((await structured(await call('listBlockchains', {}))).blockchains.length).toBeGreaterThan(0);
  });
});

describe('JsonExchangeTransport', () => {
  it('answers each request with its own response, drops notifications, and ends waiters on close', async () => {
    const transport = new JsonExchangeTransport();
    await expect(transport.exchange({ jsonrpc: '2.0', id: 9, method: 'ping' }, {})).rejects.toThrow(
      /not connected/,
    );
    const handled: JSONRPCMessage[] = [];
    transport.onmessage = (message) => {
      handled.push(message);
    };
    const server = new McpServer({ name: 'probe', version: '1' });
    const connected = new JsonExchangeTransport();
    await server.connect(connected);
    expect(await connected.exchange({ jsonrpc: '2.0', id: 'p', method: 'ping' }, {})).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      result: {},
    });
    await connected.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x' },
    });
    // A transport closed while a request waits answers it as the SDK does a closed connection.
    const waiting = transport.exchange({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {});
    expect(handled).toHaveLength(1);
    await transport.close();
    expect(await waiting).toMatchObject({ id: 1, error: { code: ErrorCode.ConnectionClosed } });
    await server.close();
  });
});

describe('which POSTs take the exchange path (directExchangeRequest)', () => {
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } };
  const headers = { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };

  it('takes a single well-formed request with a JSON content type and a supported version', () => {
    expect(directExchangeRequest(request, headers)).toEqual(request);
    expect(directExchangeRequest(request, { 'content-type': 'application/json; charset=utf-8' })).toEqual(
      request,
    );
    expect(directExchangeRequest({ jsonrpc: '2.0', id: 'a', method: 'ping' }, headers)).toBeDefined();
  });

  it('leaves everything else to the SDK transport, which answers it as before', () => {
    for (const body of [
      [request], // a batch
      { jsonrpc: '2.0', method: 'notifications/initialized' }, // a notification
      { ...request, method: 'initialize' },
      { ...request, id: 1.5 }, // not a JSON-RPC id
      { ...request, jsonrpc: '1.0' },
      { ...request, extra: true }, // JSON-RPC requests are strict
      { ...request, params: 'x' },
      'text',
      null,
    ]) {
      expect(directExchangeRequest(body, headers)).toBeUndefined();
    }
    expect(directExchangeRequest(request, { ...headers, 'content-type': 'text/plain' })).toBeUndefined();
    expect(
      directExchangeRequest(request, { ...headers, 'mcp-protocol-version': '1999-01-01' }),
    ).toBeUndefined();
  });
});
