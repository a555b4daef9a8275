/**
 * CORS, as a browser-based MCP client meets it: a page on another origin (the MCP Inspector's
 * http://localhost:6274 stand-in) in headless Chromium discovers OAuth, registers (DCR, a JSON
 * POST that needs a preflight), reads refusals of the public endpoints, and calls /mcp/v1 when
 * MCP_ALLOWED_ORIGINS lists its origin. The preflights themselves are checked over plain HTTP
 * too; the AWS side (MOCK OPTIONS methods) is test/cdk/cors.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/ensure-chromium';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

const PUBLIC_ALLOW_HEADERS = 'content-type, authorization, mcp-protocol-version';

describe('CORS for browser-based clients', () => {
  let host: TestHost;
  let browser: Browser;
  let pageServer: Server;
  /** The page's origin: another host name and port than the service's 127.0.0.1. */
  let pageOrigin: string;
  let page: Page;
  const savedAllowed = process.env.MCP_ALLOWED_ORIGINS;

  beforeAll(async () => {
    host = await startTestHost();
    browser = await launchChromium();
    pageServer = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>another origin</title><p>client page</p>');
    });
    await new Promise<void>((done) => pageServer.listen(0, '127.0.0.1', done));
    pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  });
  afterEach(() => {
    if (savedAllowed === undefined) delete process.env.MCP_ALLOWED_ORIGINS;
    else process.env.MCP_ALLOWED_ORIGINS = savedAllowed;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => pageServer?.close(done));
    await host?.stop();
  });

  type PageInit = { method?: string; headers?: Record<string, string>; body?: string };
  type PageAnswer = { status: number; headers: Record<string, string>; body: string };

  /** fetch() run by the page: status, the headers it may read, and the body; or what it failed with. */
  const pageAttempt = (url: string, init: PageInit = {}) =>
    page.evaluate(
      async ({ url, init }) => {
        try {
          const response = await fetch(url, init);
          const answer = {
            status: response.status,
            headers: Object.fromEntries(response.headers),
            body: await response.text(),
          };
          return { answer };
        } catch (error) {
          return { failed: String(error) };
        }
      },
      { url, init },
    ) as Promise<{ answer?: PageAnswer; failed?: string }>;

  /** The page's fetch, which must get through (a CORS refusal fails the test with the browser's reason). */
  const pageFetch = async (url: string, init: PageInit = {}): Promise<PageAnswer> => {
    const { answer, failed } = await pageAttempt(url, init);
    if (!answer) throw new Error(`the page's fetch of ${url} failed: ${failed}`);
    return answer;
  };

  const preflight = (path: string, origin: string, method = 'POST', headers = 'content-type') =>
    fetch(`${host.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });

  it('answers the preflight of every public OAuth and discovery endpoint, for any origin', async () => {
    for (const [path, methods] of [
      ['/.well-known/oauth-protected-resource', 'GET, OPTIONS'],
      ['/.well-known/oauth-protected-resource/mcp/v1', 'GET, OPTIONS'],
      ['/.well-known/oauth-authorization-server/oauth/mcp', 'GET, OPTIONS'],
      ['/oauth/mcp/jwks.json', 'GET, OPTIONS'],
      ['/oauth/mcp/register', 'POST, OPTIONS'],
      ['/oauth/mcp/token', 'POST, OPTIONS'],
      ['/oauth/mcp/revoke', 'POST, OPTIONS'],
    ] as const) {
      const response = await preflight(path, 'https://anywhere.example');
      expect([path, response.status]).toEqual([path, 204]);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': methods,
        'access-control-allow-headers': PUBLIC_ALLOW_HEADERS,
        'access-control-max-age': '7200',
      });
    }
    // The browser pages of the flow are navigations, not fetches: no preflight there.
    expect((await preflight('/oauth/mcp/authorize', 'https://anywhere.example')).status).toBe(405);
  });

  it('lets a page on another origin discover OAuth and register (DCR), and read the refusals', {
    timeout: 60_000,
  }, async () => {
    // The SDK sends MCP-Protocol-Version on discovery: a preflighted GET.
    const metadata = await pageFetch(`${host.baseUrl}/.well-known/oauth-protected-resource/mcp/v1`, {
      headers: { 'mcp-protocol-version': '2025-11-25' },
    });
    expect(metadata.status).toBe(200);
    const issuer = (JSON.parse(metadata.body) as Json).authorization_servers[0] as string;
    const server = await pageFetch(`${host.baseUrl}/.well-known/oauth-authorization-server/oauth/mcp`, {
      headers: { 'mcp-protocol-version': '2025-11-25' },
    });
    expect((JSON.parse(server.body) as Json).issuer).toBe(issuer);

    const registered = await pageFetch(`${issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [`${pageOrigin}/oauth/callback`],
        client_name: 'Browser client',
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    expect((JSON.parse(registered.body) as Json).client_id).toMatch(/^mcp_/);

    // Refusals are readable too: the page can show what is wrong.
    const refused = await pageFetch(`${issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['javascript:alert(1)'] }),
    });
    expect(refused.status).toBe(400);
    expect((JSON.parse(refused.body) as Json).error).toBe('invalid_redirect_uri');
    const notJson = await pageFetch(`${issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    const token = await pageFetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&client_id=mcp_nobody&code=x&code_verifier=y',
    });
    expect(token.status).toBe(401);
    const keys = await pageFetch(`${issuer}/jwks.json`);
    expect((JSON.parse(keys.body) as Json).keys.length).toBeGreaterThan(0);
  });

  it('lets a page of an allowed origin call /mcp/v1 and read its 401 challenge', {
    timeout: 60_000,
  }, async () => {
    process.env.MCP_ALLOWED_ORIGINS = `https://other.example, ${pageOrigin}`;
    const answer = await preflight('/mcp/v1', pageOrigin, 'POST', 'content-type, x-service-api-key');
    expect(answer.status).toBe(204);
    expect(Object.fromEntries(answer.headers)).toMatchObject({
      'access-control-allow-origin': pageOrigin,
      'access-control-allow-methods': 'POST, GET, OPTIONS',
      'access-control-allow-headers':
        'content-type, authorization, mcp-protocol-version, mcp-session-id, last-event-id, x-service-api-key',
      vary: 'Origin',
    });

    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const called = await pageFetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: { ...headers, 'x-service-api-key': host.apiKey, 'mcp-protocol-version': '2025-11-25' },
      body: initialize,
    });
    expect(called.status).toBe(200);
    expect((JSON.parse(called.body) as Json).result.serverInfo.name).toBe('service');
    // What the browser checked (a page cannot read these headers itself).
    const direct = await host.call('/mcp/v1', {
      headers: { ...headers, origin: pageOrigin },
      body: initialize,
      method: 'POST',
    });
    expect(direct.status).toBe(200);
    expect(Object.fromEntries(direct.headers)).toMatchObject({
      'access-control-allow-origin': pageOrigin,
      'access-control-expose-headers': 'www-authenticate, mcp-protocol-version, mcp-session-id',
      vary: 'Origin',
    });

    // Without credentials: the page reads the 401 and its WWW-Authenticate (exposed), as an OAuth client must.
    const unauthorized = await pageFetch(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers,
      body: initialize,
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['www-authenticate']).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp\/v1"/,
    );
  });

  it('keeps /mcp/v1 closed to an origin MCP_ALLOWED_ORIGINS does not list', { timeout: 60_000 }, async () => {
    process.env.MCP_ALLOWED_ORIGINS = 'https://other.example';
    const answer = await preflight('/mcp/v1', pageOrigin);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await answer.json()) as Json).error).toBe(
      `Forbidden: Origin ${pageOrigin} is not allowed for this server (set MCP_ALLOWED_ORIGINS to allow it).`,
    );
    const blocked = await pageAttempt(`${host.baseUrl}/mcp/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': host.apiKey },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(blocked.failed).toMatch(/Failed to fetch/);
    // Non-browser clients (no Origin) are unaffected, and get no CORS headers.
    const plain = await host.call('/mcp/v1', {
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
  });
});
