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
