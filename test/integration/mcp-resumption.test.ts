import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountEventStore, formatEventId, mcpEventLog } from '../../functions/mcp/event-store';
import { crossJoinSql } from '../support/runaway-sql';
import { type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split(/\n\n/)
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'data') event.data += value;
      }
      return event;
    });
}

describe('MCP stream resumption: SSE event ids, persisted events, GET /mcp/v1 with Last-Event-ID', () => {
  let host: TestHost;
  let otherKey: string;
  let nextId = 1;

  const post = (message: Json, headers: Record<string, string> = {}) =>
    fetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: {
        'x-service-api-key': host.apiKey,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...message }),
    });

  const replay = (lastEventId: string | undefined, apiKey = host.apiKey) =>
    fetch(`${host.baseUrl}/mcp/v1`, {
      headers: {
        'x-service-api-key': apiKey,
        accept: 'text/event-stream',
        ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
      },
    });

  const callTool = (name: string, args: Json, meta?: Json) =>
    post({ method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });

  /** A tool answered at once comes back as one JSON response. */
  async function immediate(response: Response): Promise<Json> {
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    return ((await response.json()) as Json).result.structuredContent;
  }

  async function startSlowExecution(size: number): Promise<string> {
    const created = await immediate(
      await callTool('createServiceQuery', { name: `slow ${size}`, query: crossJoinSql(size * size) }),
    );
    const run = await immediate(await callTool('executeQueryById', { queryId: created.queryId }));
    return run.executionId;
  }

  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'replay_other');
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('gives SSE events ids and replays what followed an event, then ends the response', async () => {
    const executionId = await startSlowExecution(4000);
    const response = await callTool(
      'getExecutionResults',
      { executionId, timeoutSeconds: 20 },
      { progressToken: 'p1' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = parseSse(await response.text());
    // A priming event (id, empty data), progress notifications, then the result: all with ids.
    expect(events.length).toBeGreaterThanOrEqual(3);
    for (const event of events) expect(event.id).toMatch(/^[0-9a-f-]{36}_\d{6}$/);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events[0]!.data).toBe('');
    const last = JSON.parse(events.at(-1)!.data);
    expect(last.result.structuredContent.state).toBe('QUERY_STATE_COMPLETED');
    expect(events.some((e) => e.data.includes('notifications/progress'))).toBe(true);

    const replayed = await replay(events[0]!.id);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('content-type')).toMatch(/text\/event-stream/);
    // text() resolving proves the response ended.
    const again = parseSse(await replayed.text());
    expect(again).toEqual(events.slice(1));
    for (const event of again) expect(event.event).toBe('message');

    const fromMiddle = parseSse(await (await replay(events.at(-2)!.id)).text());
    expect(fromMiddle).toEqual(events.slice(-1));
    const afterLast = await replay(events.at(-1)!.id);
    expect(afterLast.status).toBe(200);
    expect(await afterLast.text()).toBe('');
  });

  it('never replays another account’s stream, and answers bad ids with 4xx', async () => {
    // Asking for progress makes even a quick call a (resumable) stream.
    const response = await callTool('listBlockchains', {}, { progressToken: 'p2' });
    const events = parseSse(await response.text());
    expect(events.length).toBe(2);
    const firstId = events[0]!.id!;

    const foreign = await replay(firstId, otherKey);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as Json).error.message).toMatch(/unknown, expired .* another account/);
    const own = parseSse(await (await replay(firstId)).text());
    expect(own).toEqual(events.slice(1));

    const malformed = await replay('not-an-event-id');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).error.message).toMatch(/Malformed Last-Event-ID/);
    const unknown = await replay(formatEventId(randomUUID(), 1));
    expect(unknown.status).toBe(404);

    const noKey = await replay(firstId, '');
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('keeps answering a GET without Last-Event-ID with 405', async () => {
    const response = await replay(undefined);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('gives JSON responses no event ids and stores nothing for them', async () => {
    for (const accept of ['application/json', 'application/json, text/event-stream']) {
      const response = await post({ method: 'tools/list' }, { accept });
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(((await response.json()) as Json).result.tools.length).toBeGreaterThan(5);
    }
  });

  it('serves the SDK client, whose resumption tokens replay a response through GET', async () => {
    const client = new Client({ name: 'resume', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.baseUrl}/mcp/v1`), {
        requestInit: { headers: { 'x-service-api-key': host.apiKey } },
      }),
    );
    try {
      const tokens: string[] = [];
      const params = { name: 'listBlockchains', arguments: {} };
      // onprogress makes the SDK send a progressToken: the answer is streamed, with event ids.
      const result: Json = await client.callTool(params, undefined, {
        onprogress: () => undefined,
        onresumptiontoken: (token) => tokens.push(token),
      });
      expect(result.isError).toBeFalsy();
      expect(tokens.length).toBe(2);
      // Resuming from the priming event: the SDK sends GET with Last-Event-ID instead of a POST
      // and takes the replayed result as the answer.
      const resumed: Json = await client.request({ method: 'tools/call', params }, CallToolResultSchema, {
        resumptionToken: tokens[0],
      });
      expect(resumed.structuredContent).toEqual(result.structuredContent);
    } finally {
      await client.close();
    }
  });

  it('drops expired events on read (dynalite ignores TTL) and round-trips messages over 300 KB', async () => {
    const log = mcpEventLog(host.services);
    const streamId = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    const big = 'x'.repeat(700_000);
    const message = (n: number, text = `m${n}`): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: text },
    });
    await log.put({
      streamId,
      sequence: 1,
      accountId: host.accountId,
      message: {} as JSONRPCMessage,
      expiresAt: now + 60,
    });
    await log.put({
      streamId,
      sequence: 2,
      accountId: host.accountId,
      message: message(2),
      expiresAt: now - 1,
    });
    await log.put({
      streamId,
      sequence: 3,
      accountId: host.accountId,
      message: message(3, big),
      expiresAt: now + 60,
    });
    await log.put({
      streamId,
      sequence: 4,
      accountId: host.accountId,
      message: message(4),
      expiresAt: now + 60,
    });
    const after = await log.listAfter(streamId, 1);
    expect(after.map((e) => e.sequence)).toEqual([3, 4]);
    expect(after[0]!.message).toEqual(message(3, big));
    expect(await log.owner(streamId, 2)).toBeUndefined();

    const store = new AccountEventStore(log, host.accountId);
    const sent: string[] = [];
    await store.replayEventsAfter(formatEventId(streamId, 3), {
      send: async (id) => {
        sent.push(id);
      },
    });
    expect(sent).toEqual([formatEventId(streamId, 4)]);
    // Past its expiry, the anchor itself is gone.
    const later = new AccountEventStore(log, host.accountId, 3600, () => Date.now() + 120_000);
    await expect(
      later.replayEventsAfter(formatEventId(streamId, 1), { send: async () => {} }),
    ).rejects.toThrow(/expired/);
  });

  it('cuts a call at the request deadline and answers with a tool error', async () => {
    const executionId = await startSlowExecution(30000);
    process.env.MCP_REQUEST_DEADLINE_MS = '500';
    try {
      const started = Date.now();
      const response = await callTool('getExecutionResults', { executionId, timeoutSeconds: 20 });
      const events = parseSse(await response.text());
      expect(Date.now() - started).toBeLessThan(5000);
      const answer = JSON.parse(events.at(-1)!.data);
      expect(answer.result.isError).toBe(true);
      expect(answer.result.content[0].text).toMatch(
        /Stopped after 0.5 s.*executeQueryById.*getExecutionResults/,
      );
      // The cut answer is persisted like any other event.
      const replayed = parseSse(await (await replay(events[0]!.id)).text());
      expect(replayed).toEqual(events.slice(1));
    } finally {
      delete process.env.MCP_REQUEST_DEADLINE_MS;
    }
  });
});
