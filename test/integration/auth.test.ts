import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey, revokeApiKey } from '../../functions/accounts/use-cases';
import { REPO_ROOT } from '../../functions/local/host';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

describe('API-key authentication on /v1', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const expect401 = async (response: Response, message: RegExp) => {
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${host.baseUrl}/.well-known/oauth-protected-resource/v1", scope="mcp:service:full"`,
    );
    expect(await bodyOf(response)).toEqual({ error: expect.stringMatching(message) });
  };

  it('refuses a request without a key, saying how to send one', async () => {
    await expect401(
      await host.call('/v1/datasets', { apiKey: null }),
      /x-service-api-key header or as \?api_key=, or an OAuth access token/,
    );
  });

  it('refuses unknown and malformed keys alike', async () => {
    await expect401(await host.call('/v1/datasets', { apiKey: 'nope' }), /Invalid API key/);
    const forged = `${host.apiKey.slice(0, 22)}${'A'.repeat(43)}`;
    await expect401(await host.call('/v1/datasets', { apiKey: forged }), /Invalid API key/);
  });

  it('refuses Basic auth (curl -u) saying where the key goes, on REST and MCP, never as a bad token', async () => {
    const basic = `Basic ${Buffer.from(`x:${host.apiKey}`).toString('base64')}`;
    const expected =
      'Basic auth is not supported; send the API key in the x-service-api-key header or as Authorization: Bearer <key>.';
    await expect401(
      await host.call('/v1/datasets', { apiKey: null, headers: { authorization: basic } }),
      new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    const mcp = await host.call('/mcp/v1', {
      apiKey: null,
      headers: { authorization: basic, accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.status).toBe(401);
    expect(await bodyOf(mcp)).toEqual({ error: expected });
    expect(mcp.headers.get('www-authenticate')).not.toContain('invalid_token');
    // Another scheme is named; a bare key (no scheme) still works.
    await expect401(
      await host.call('/v1/datasets', { apiKey: null, headers: { authorization: 'Digest username="x"' } }),
      /^The Authorization scheme "Digest" is not supported; send the API key in the x-service-api-key header/,
    );
    const bare = await host.call('/v1/datasets?limit=1', {
      apiKey: null,
      headers: { authorization: host.apiKey },
    });
    expect(bare.status).toBe(200);
    // Next to a valid key, Basic is ignored like any other refused credential.
    const withKey = await host.call('/v1/datasets?limit=1', { headers: { authorization: basic } });
    expect(withKey.status).toBe(200);
  });

  it('accepts the header in any case, and the api_key query parameter', async () => {
    const upper = await host.call('/v1/datasets?limit=1', {
      apiKey: null,
      headers: { 'X-SERVICE-API-KEY': host.apiKey },
    });
    expect(upper.status).toBe(200);
    const query = await host.call(`/v1/datasets?limit=1&api_key=${encodeURIComponent(host.apiKey)}`, {
      apiKey: null,
    });
    expect(query.status).toBe(200);
  });

  it('stops accepting a key once it is revoked, and other keys keep working', async () => {
    const account = await createAccount(host.services.accounts, { handle: 'revoker' });
    const first = await createApiKey(host.services.accounts, account.accountId, 'first');
    const second = await createApiKey(host.services.accounts, account.accountId, 'second');
    expect((await host.call('/v1/datasets?limit=1', { apiKey: first.apiKey })).status).toBe(200);
    await revokeApiKey(host.services.accounts, first.record.prefix);
    await expect401(await host.call('/v1/datasets?limit=1', { apiKey: first.apiKey }), /revoked/);
    expect((await host.call('/v1/datasets?limit=1', { apiKey: second.apiKey })).status).toBe(200);
    const keys = await host.services.accounts.listApiKeys(account.accountId);
    expect(keys.map((k) => [k.name, Boolean(k.revokedAt)]).sort()).toEqual([
      ['first', true],
      ['second', false],
    ]);
    expect(JSON.stringify(keys)).not.toContain(first.apiKey);
  });

  it('a key the host has cached stops working as soon as the admin CLI (another process) revokes it', async () => {
    const account = await createAccount(host.services.accounts, { handle: 'cli_revoker' });
    const key = await createApiKey(host.services.accounts, account.accountId, 'cached');
    // Two requests: the second is answered from the host's key cache.
    for (let i = 0; i < 2; i++) {
      expect((await host.call('/v1/datasets?limit=1', { apiKey: key.apiKey })).status).toBe(200);
    }
    const cli = await promisify(execFile)(
      join(REPO_ROOT, 'node_modules/.bin/tsx'),
      ['functions/local/admin-cli.ts', '--data-dir', host.dataDir, 'revoke-key', key.record.prefix],
      { cwd: REPO_ROOT },
    );
    expect(cli.stdout).toContain(`Revoked ${key.record.prefix}`);
    await expect401(await host.call('/v1/datasets?limit=1', { apiKey: key.apiKey }), /revoked/);
  });

  it('keeps handles unique', async () => {
    await createAccount(host.services.accounts, { handle: 'unique_one' });
    await expect(createAccount(host.services.accounts, { handle: 'unique_one' })).rejects.toThrow(
      /already taken/,
    );
    await expect(createAccount(host.services.accounts, { handle: 'Bad Handle' })).rejects.toThrow(
      /Invalid handle/,
    );
  });
});
