/**
 * The one authorizer in front of every route of the route table: each protected route refuses a
 * request without credentials (401 with the Bearer challenge) and accepts each of the three
 * ways in: the x-service-api-key header, ?api_key=, and an OAuth bearer token. Public routes
 * answer without credentials. Ambiguous credentials are refused with 400 saying what to send.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { obtainTokens } from '../support/oauth-browser';
import { startTestHost, type TestHost } from '../support/test-host';

const SAMPLE_PARAMETERS: Record<string, string> = {
  query_id: '1',
  execution_id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
  pipeline_execution_id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
  full_name: 'dune.local.nothing',
  visualization_id: '1',
  dashboard_id: '1',
  resource_path: 'mcp/v1',
};

function samplePath(path: string): string {
  return path.replace(/\{(\w+)\+?\}/g, (_, name: string) => SAMPLE_PARAMETERS[name] ?? 'x');
}

describe('one authorizer for every route', () => {
  let host: TestHost;
  let bearer: string;
  beforeAll(async () => {
    host = await startTestHost();
    bearer = (await obtainTokens(host.baseUrl, host.login)).access_token;
  });
  afterAll(() => host?.stop());

  const call = (method: string, path: string, headers: Record<string, string> = {}) =>
    fetch(`${host.baseUrl}${path}`, {
      method,
      headers: { accept: 'application/json, text/event-stream', ...headers },
      ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
      redirect: 'manual',
    });

  const protectedRoutes = routes.filter((route) => !route.public);
  it.each(protectedRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: refused without credentials, accepted with header key, query key and bearer token',
    async (_, route) => {
      const path = samplePath(route.path);
      const refused = await call(route.method, path);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/(mcp\/)?v1", scope="mcp:service:full"$/,
      );
      const separator = path.includes('?') ? '&' : '?';
      for (const [how, response] of [
        ['header key', await call(route.method, path, { 'x-service-api-key': host.apiKey })],
        [
          'query key',
          await call(route.method, `${path}${separator}api_key=${encodeURIComponent(host.apiKey)}`),
        ],
        ['bearer token', await call(route.method, path, { authorization: `Bearer ${bearer}` })],
      ] as const) {
        // Past authentication: whatever the route says about the sample input, never 401/403/5xx.
        expect([how, response.status]).not.toEqual([how, 401]);
        expect([how, response.status < 500 && response.status !== 403]).toEqual([how, true]);
      }
    },
  );

  it('answers the public routes without credentials', async () => {
    for (const route of routes.filter((candidate) => candidate.public)) {
      const response = await call(route.method, samplePath(route.path));
      expect([route.path, response.status]).not.toEqual([route.path, 401]);
      expect(response.status).toBeLessThan(500);
    }
  });

  describe('ambiguous credentials are refused with 400 saying which to send', () => {
    /** Sends the header twice for real, on a raw socket (fetch would merge repeats into one value). */
    const rawRequest = (path: string, rawHeaders: string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(`${host.baseUrl}${path}`);
        const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
        for (let i = 0; i < rawHeaders.length; i += 2) lines.push(`${rawHeaders[i]}: ${rawHeaders[i + 1]}`);
        const socket = connect(Number(url.port), url.hostname, () =>
          socket.end(`${lines.join('\r\n')}\r\n\r\n`),
        );
        let raw = '';
        socket.on('data', (chunk) => {
          raw += chunk;
        });
        socket.on('error', reject);
        socket.on('end', () => {
          const status = Number(/^HTTP\/1\.1 (\d+)/.exec(raw)?.[1]);
          const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
          // Chunked: the JSON is the one line that starts with "{".
          resolve({ status, body: body.split('\r\n').find((line) => line.startsWith('{')) ?? '' });
        });
      });

    it('two x-service-api-key headers', async () => {
      const response = await rawRequest('/v1/queries', [
        'x-service-api-key',
        host.apiKey,
        'x-service-api-key',
        'osk_0000000000000000_other',
      ]);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error).toMatch(/2 x-service-api-key headers; send exactly one/);
      // Even two copies of the same valid key.
      const same = await rawRequest('/v1/queries', [
        'x-service-api-key',
        host.apiKey,
        'X-Service-Api-Key',
        host.apiKey,
      ]);
      expect(same.status).toBe(400);
    });

    it('?api_key=A&api_key=B', async () => {
      const response = await call('GET', `/v1/queries?api_key=${host.apiKey}&api_key=${host.apiKey}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(
        /2 api_key parameters; send exactly one/,
      );
    });

    it('a header key and a query key together', async () => {
      const response = await call('GET', `/v1/queries?api_key=${host.apiKey}`, {
        'x-service-api-key': host.apiKey,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(
        /either in the x-service-api-key header or as \?api_key=, not both/,
      );
    });

    it('an API key and a bearer token together, on REST and on MCP', async () => {
      for (const path of ['/v1/queries', '/mcp/v1']) {
        const response = await call(path === '/mcp/v1' ? 'POST' : 'GET', path, {
          'x-service-api-key': host.apiKey,
          authorization: `Bearer ${bearer}`,
        });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: string }).error).toMatch(
          /either an API key or an Authorization bearer token, not both/,
        );
      }
    });
  });

  it('accepts an API key sent as a bearer token (clients that only know Authorization)', async () => {
    const response = await call('GET', '/v1/queries?limit=1', { authorization: `Bearer ${host.apiKey}` });
    expect(response.status).toBe(200);
  });
});
