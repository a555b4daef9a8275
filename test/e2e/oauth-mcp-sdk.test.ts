/**
 * The MCP SDK client's own OAuth: `auth()` with an `OAuthClientProvider` discovers the server from
 * the 401, registers, sends the user to the sign-in page (walked here over HTTP), exchanges the
 * code, and the transport then calls a tool with the token it saved. Once with a provider that
 * gives a `state`, once with one that does not (like the SDK's example client: the SDK then sends
 * no `state`) and asks for OIDC scopes besides ours. A client that also sends a configured (revoked)
 * API key header gets through with the token it signed in for.
 */
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../functions/accounts/use-cases';
import { authorizeInBrowser } from '../support/oauth-browser';
import { startTestHost, type TestHost } from '../support/test-host';

const REDIRECT = 'http://127.0.0.1:45679/callback';

/** Without `state()`: the SDK leaves `state` out of the authorization request. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata = {
    redirect_uris: [REDIRECT],
    client_name: 'MCP SDK test client',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** With `state()`: the SDK sends it and checks nothing itself; the server echoes it. */
class StatefulProvider extends MemoryProvider {
  state() {
    return 'sdk-state';
  }
}

describe('MCP SDK client OAuth', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const connect = async (provider: MemoryProvider, scope?: string) => {
    const serverUrl = `${host.baseUrl}/mcp/v1`;
    expect(await auth(provider, { serverUrl, scope })).toBe('REDIRECT');
    expect(provider.client?.client_id).toMatch(/^mcp_/);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await authorizeInBrowser(authorizationUrl.href, host.login);
    const code = callback.searchParams.get('code');
    expect(callback.searchParams.get('error_description')).toBeNull();
    if (!code) throw new Error(`no code: ${callback}`);
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    expect(provider.saved?.refresh_token).toBeTruthy();
    expect(provider.saved?.scope).toBe('mcp:service:full');

    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    const result = await client.callTool({ name: 'listBlockchains', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('ethereum');
    await client.close();
    return { authorizationUrl, callback };
  };

  it('completes auth() with a provider that gives a state, and calls a tool', async () => {
    const { authorizationUrl, callback } = await connect(new StatefulProvider());
    expect(authorizationUrl.searchParams.get('state')).toBe('sdk-state');
    expect(callback.searchParams.get('state')).toBe('sdk-state');
  });

  it('completes auth() with a provider without state() asking for OIDC scopes too, and calls a tool', async () => {
    const { authorizationUrl, callback } = await connect(
      new MemoryProvider(),
      'openid mcp:service:full offline_access',
    );
    expect(authorizationUrl.searchParams.has('state')).toBe(false);
    expect(authorizationUrl.searchParams.get('scope')).toBe('openid mcp:service:full offline_access');
    expect(callback.searchParams.has('state')).toBe(false);
  });

  it('a client configured with a revoked API key header signs in and then connects as the signed-in account', async () => {
    // How Claude Code and Cursor behave with a configured header when the server offers OAuth: the
    // header goes on every request, the token next to it once the user has signed in.
    const serverUrl = new URL(`${host.baseUrl}/mcp/v1`);
    const revoked = await createApiKey(host.services.accounts, host.accountId, 'configured, then revoked');
    await revokeApiKey(host.services.accounts, revoked.record.prefix);
    const provider = new MemoryProvider();
    const transportOptions = {
      authProvider: provider,
      requestInit: { headers: { 'x-service-api-key': revoked.apiKey } },
    };
    const first = new StreamableHTTPClientTransport(serverUrl, transportOptions);
    // The revoked key's 401 carries the OAuth challenge: the SDK registers and sends the user to sign in.
    await expect(new Client({ name: 'configured-key', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    const callback = await authorizeInBrowser(provider.authorizationUrl!.href, host.login);
    await first.finishAuth(callback.searchParams.get('code')!);

    // Every request now carries the revoked key and the bearer token: the token is used.
    const client = new Client({ name: 'configured-key', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, transportOptions));
    const result = await client.callTool({ name: 'getUsage', arguments: {} });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    await client.close();
  });
});
