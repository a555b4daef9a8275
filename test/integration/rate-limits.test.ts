import { setTimeout as sleep } from 'node:timers/promises';
import { DuneClient } from '@duneanalytics/client-sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import { RATE_WINDOW_MS, type RateLimits } from '../../functions/core/rate-limits';
import { fetchPointedAt } from '../support/dune-sdk';
import { requestFrom } from '../support/local-address';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

/**
 * The counts are per one-minute window: a test that began just before a window ends would see
 * its budget renewed halfway. Each test starts with at least 15 s of its window left.
 */
async function awayFromWindowEnd() {
  const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
  if (left < 15_000) await sleep(left + 50);
}

describe('per-account request rate limits', () => {
  let host: TestHost;
  beforeAll(async () => {
    // Nothing else here registers OAuth clients: a small registration budget to use up.
    host = await startTestHost(undefined, { execution: { oauthRegistrationsPerHour: 3 } });
  });
  afterAll(() => host?.stop());

  let accounts = 0;
  /** A fresh account with the given limits of its own, and its key. */
  async function limitedAccount(limits: Partial<RateLimits>) {
    const account = await createAccount(host.services.accounts, { handle: `limited_${++accounts}` });
    await host.services.rateLimits.setRateLimits(account.accountId, limits);
    return {
      accountId: account.accountId,
      apiKey: (await createApiKey(host.services.accounts, account.accountId)).apiKey,
    };
  }

  it('refuses a write over the budget with 429, Retry-After and the budget headers; reads go on, and other accounts are not touched', async () => {
    await awayFromWindowEnd();
    const { apiKey } = await limitedAccount({ write: 3, read: 4 });
    const create = (name: string) =>
      host.call('/v1/query', { apiKey, json: { name, query_sql: 'select 1' } });
    for (const [i, left] of [2, 1, 0].entries()) {
      const created = await create(`q${i}`);
      expect(created.status).toBe(200);
      expect(created.headers.get('x-ratelimit-limit')).toBe('3');
      expect(created.headers.get('x-ratelimit-remaining')).toBe(String(left));
      expect(created.headers.get('x-ratelimit-resource')).toBe('write');
      const reset = Number(created.headers.get('x-ratelimit-reset'));
      expect(reset * 1000 - Date.now()).toBeGreaterThan(0);
      expect(reset * 1000 - Date.now()).toBeLessThanOrEqual(RATE_WINDOW_MS);
    }
    const refused = await create('one too many');
    expect(refused.status).toBe(429);
    expect((await bodyOf(refused)).error).toMatch(
      /^Rate limit reached: this account may make 3 write requests \(creating, changing, deleting or executing\) per minute\. Try again in \d+ s\.$/,
    );
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-request-id')).toBeTruthy();

    // Reads have their own budget; the refused create made nothing.
    const listed = await host.call('/v1/queries', { apiKey });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-ratelimit-resource')).toBe('read');
    expect(listed.headers.get('x-ratelimit-remaining')).toBe('3');
    expect((await bodyOf(listed)).queries.map((q: { name: string }) => q.name).sort()).toEqual([
      'q0',
      'q1',
      'q2',
    ]);
    for (let i = 0; i < 3; i++) expect((await host.call('/v1/queries', { apiKey })).status).toBe(200);
    expect((await host.call('/v1/queries', { apiKey })).status).toBe(429);

    // The dev account has the deployment's default budget and is counted apart.
    const other = await host.call('/v1/query', { json: { name: 'other', query_sql: 'select 1' } });
    expect(other.status).toBe(200);
    expect(Number(other.headers.get('x-ratelimit-limit'))).toBe(host.services.config.rateLimits.write);
  });

  it('documents the refusal and its headers in the OpenAPI document', async () => {
    const document = await bodyOf(await host.call('/v1/openapi.json', { apiKey: null }));
    const tooMany =
      document.components.responses[
        document.paths['/v1/sql/execute'].post.responses['429'].$ref.split('/').pop()
      ];
    expect(Object.keys(tooMany.headers)).toEqual([
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-RateLimit-Resource',
    ]);
  });

  it('counts a cancel, a search and the usage as reads, as Dune does', async () => {
    await awayFromWindowEnd();
    const { apiKey } = await limitedAccount({ write: 1, read: 100 });
    expect(
      (await host.call('/v1/query', { apiKey, json: { name: 'w', query_sql: 'select 1' } })).status,
    ).toBe(200);
    expect((await host.call('/v1/sql/execute', { apiKey, json: { sql: 'select 1' } })).status).toBe(429);
    const reads = [
      await host.call('/v1/execution/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel', { apiKey, method: 'POST' }),
      await host.call('/v1/datasets/search', { apiKey, json: { query: 'swap' } }),
      await host.call('/v1/datasets/search-by-contract', {
        apiKey,
        json: { contract_address: '0x0000000000000000000000000000000000000001' },
      }),
      await host.call('/v1/usage', { apiKey, method: 'POST' }),
    ];
    for (const read of reads) {
      expect(read.status).not.toBe(429);
      expect(read.headers.get('x-ratelimit-resource')).toBe('read');
    }
  });

  it('keeps no count for an unlimited class and sends no budget headers for it', async () => {
    const { apiKey } = await limitedAccount({ read: 'unlimited', write: 1 });
    for (let i = 0; i < 5; i++) {
      const read = await host.call('/v1/queries', { apiKey });
      expect(read.status).toBe(200);
      expect(read.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('counts before a request is read: a malformed write over the budget is 429, not 400', async () => {
    await awayFromWindowEnd();
    const { apiKey } = await limitedAccount({ write: 1 });
    const bad = () => host.call('/v1/query', { apiKey, json: { name: 42 } });
    expect((await bad()).status).toBe(400);
    expect((await bad()).status).toBe(429);
  });

  it("surfaces through Dune's TypeScript SDK with its message", async () => {
    await awayFromWindowEnd();
    const { apiKey } = await limitedAccount({ write: 1 });
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', fetchPointedAt(host.baseUrl, realFetch));
    try {
      const client = new DuneClient(apiKey);
      await client.query.createQuery({ name: 'first', query_sql: 'select 1' });
      await expect(client.query.createQuery({ name: 'second', query_sql: 'select 1' })).rejects.toThrow(
        /Status: 429, Message: .*Rate limit reached: this account may make 1 write requests/,
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('counts MCP tool calls by their annotation, and answers one over the budget with a tool error', async () => {
    await awayFromWindowEnd();
    const { apiKey } = await limitedAccount({ write: 1, read: 2 });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.baseUrl}/mcp/v1`), {
        requestInit: { headers: { 'x-service-api-key': apiKey } },
      }),
    );
    try {
      // Listing tools is not a tool call: it is not counted.
      for (let i = 0; i < 3; i++) expect((await client.listTools()).tools.length).toBe(20);
      const create = () =>
        client.callTool({ name: 'createServiceQuery', arguments: { name: 'mcp', query: 'select 1' } });
      expect((await create()).isError).toBeFalsy();
      const refused = (await create()) as { isError?: boolean; content: { text: string }[] };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(/Rate limit reached: this account may make 1 write requests/);
      // Read-only tools draw on the read budget.
      const chains = () => client.callTool({ name: 'listBlockchains', arguments: {} });
      expect((await chains()).isError).toBeFalsy();
      expect((await chains()).isError).toBeFalsy();
      expect((await chains()).isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('limits OAuth client registrations per client address and hour: 429 with Retry-After and an RFC 7591 error', async () => {
    // The budget is per clock hour: keep away from its end.
    const left = 3_600_000 - (Date.now() % 3_600_000);
    if (left < 15_000) await sleep(left + 50);
    const register = (address: string, metadata: unknown) =>
      requestFrom(address, `${host.baseUrl}/oauth/mcp/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(metadata),
      });
    const valid = { client_name: 'Spammy', redirect_uris: ['http://127.0.0.1:4000/cb'] };
    // A refused registration stores nothing and costs nothing.
    expect((await register('127.0.0.5', { redirect_uris: ['javascript:x'] })).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await register('127.0.0.5', valid)).status).toBe(201);
    const refused = await register('127.0.0.5', valid);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      error: 'too_many_requests',
      error_description: expect.stringMatching(
        /^Too many client registrations from this address: at most 3 per hour\. Reuse the client_id you registered, or try again in \d+ minutes?\.$/,
      ),
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['access-control-expose-headers']).toBe('retry-after');
    // Another address has a budget of its own.
    expect((await register('127.0.0.6', valid)).status).toBe(201);
  });
});
