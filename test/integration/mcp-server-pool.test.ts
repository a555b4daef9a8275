/**
 * MCP servers are built once per caller and reused (functions/mcp/server.ts, McpServerPool): this
 * shows nothing crosses requests or accounts. Two accounts' SDK clients call tools interleaved and
 * concurrently; each sees only its own private query and its own usage, and the pool keeps a
 * server per caller, never one built for the other.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import type { Account } from '../../functions/core/accounts';
import { McpServerPool } from '../../functions/mcp/server';
import type { Services } from '../../functions/services';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

describe('MCP server reuse', () => {
  let host: TestHost;
  const clients: Client[] = [];

  async function clientFor(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'pool-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.baseUrl}/mcp/v1`), {
        requestInit: { headers: { 'x-service-api-key': apiKey } },
      }),
    );
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await host?.stop();
  });

  it('keeps two accounts apart across interleaved and concurrent tool calls', async () => {
    const accounts = await Promise.all(
      ['pool_alice', 'pool_bob'].map(async (handle) => {
        const account = await createAccount(host.services.accounts, { handle });
        const { apiKey } = await createApiKey(host.services.accounts, account.accountId, 'mcp');
        return { handle, client: await clientFor(apiKey) };
      }),
    );
    const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<Json> =>
      client.callTool({ name, arguments: args });
    const saved: number[] = [];
    for (const { handle, client } of accounts) {
      const created = await call(client, 'createServiceQuery', {
        name: `${handle} secret`,
        query: `select '${handle}' as owner`,
        isPrivate: true,
      });
      expect(created.isError).toBeFalsy();
      saved.push(created.structuredContent.queryId);
    }
    const [alice, bob] = accounts;
    // Interleaved, then all at once: each answer is the caller's own.
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        call(alice!.client, 'getServiceQuery', { queryId: saved[0] }),
        call(bob!.client, 'getServiceQuery', { queryId: saved[1] }),
        call(alice!.client, 'getServiceQuery', { queryId: saved[1] }),
        call(bob!.client, 'getServiceQuery', { queryId: saved[0] }),
      ]);
      expect(answers[0].structuredContent.owner).toBe('pool_alice');
      expect(answers[1].structuredContent.owner).toBe('pool_bob');
      expect(answers[2].isError).toBe(true);
      expect(answers[3].isError).toBe(true);
    }
  });

  it('reuses a server only for its own caller, at most a few per caller, and builds a new one otherwise', async () => {
    let built = 0;
    const pool = new McpServerPool(
      () => {
        built++;
        return new McpServer({ name: 'probe', version: '1' });
      },
      2,
      1,
    );
    const services = {} as Services;
    const context = (accountId: string) => ({
      services,
      account: { accountId } as Account,
      baseUrl: 'http://host',
    });
    const a1 = pool.acquire(context('a'));
    const a2 = pool.acquire(context('a')); // the first is in use: a second server
    expect(built).toBe(2);
    await pool.release(context('a'), a1);
    await pool.release(context('a'), a2); // over maxPerCaller: dropped
    expect(pool.idleCount(context('a'))).toBe(1);
    expect(pool.acquire(context('b'))).not.toBe(a1); // another account never gets a's server
    expect(built).toBe(3);
    expect(pool.acquire(context('a'))).toBe(a1);
    expect(pool.acquire({ ...context('a'), baseUrl: 'http://other' })).not.toBe(a1);
    expect(built).toBe(4);
    // Per services instance: another host in the same process starts from nothing.
    expect(pool.idleCount({ ...context('a'), services: {} as Services })).toBe(0);
  });
});
