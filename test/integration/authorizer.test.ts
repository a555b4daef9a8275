/**
 * The one authorizer in front of every route of the route table: each protected route refuses a
 * request without credentials (401 with the Bearer challenge) and accepts each of the three
 * ways in: the x-service-api-key header, ?api_key=, and an OAuth bearer token. Public routes
 * answer without credentials. Ambiguous credentials are refused with 400 saying what to send; an
 * API key and a bearer token together resolve to whichever verifies.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../functions/accounts/use-cases';
import { lambdaAuthorizer } from '../../functions/auth/authorizer';
import { AUTHORIZATION_ONLY_VARIABLE } from '../../functions/auth/credentials';
import { routes } from '../../functions/routes';
import { obtainTokens } from '../support/oauth-browser';
import { newAccountKey, startTestHost, type TestHost } from '../support/test-host';

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
  });

  /**
   * A client configured with an API key header that also signed in over OAuth (the key was wrong
   * or revoked, the 401 offered OAuth) sends both on every request: whichever verifies is used.
   */
  describe('an API key and an Authorization credential together', () => {
    const MCP_INITIALIZE = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    /** POST /v1/usage (REST) and an MCP initialize, both with `headers`. */
    const both = async (headers: Record<string, string>) => {
      const rest = await call('POST', '/v1/usage', headers);
      const mcp = await fetch(`${host.baseUrl}/mcp/v1`, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...headers,
        },
        body: MCP_INITIALIZE,
      });
      return [
        { status: rest.status, headers: rest.headers, body: (await rest.json()) as { error?: string } },
        { status: mcp.status, headers: mcp.headers, body: (await mcp.json()) as { error?: string } },
      ];
    };
    let revokedKey: string;
    let otherAccountKey: string;
    beforeAll(async () => {
      const created = await createApiKey(host.services.accounts, host.accountId, 'revoked later');
      await revokeApiKey(host.services.accounts, created.record.prefix);
      revokedKey = created.apiKey;
      otherAccountKey = await newAccountKey(host, 'another_account');
    });

    it('a valid bearer token and a revoked or wrong key: the signed-in account', async () => {
      for (const key of [revokedKey, 'osk_0000000000000000_wrong']) {
        for (const response of await both({ 'x-service-api-key': key, authorization: `Bearer ${bearer}` })) {
          expect(response.status, JSON.stringify(response.body)).toBe(200);
        }
      }
      // The key in the URL, as a client that only takes a URL would send it.
      const query = await call('POST', `/v1/usage?api_key=${revokedKey}`, {
        authorization: `Bearer ${bearer}`,
      });
      expect(query.status).toBe(200);
    });

    it("a valid key and a bad bearer token: the key's account", async () => {
      for (const token of [`${bearer.slice(0, -4)}AAAA`, 'not-a-token', revokedKey]) {
        for (const response of await both({
          'x-service-api-key': host.apiKey,
          authorization: `Bearer ${token}`,
        })) {
          expect(response.status, JSON.stringify(response.body)).toBe(200);
        }
      }
    });

    it('both valid for the same account: that account', async () => {
      for (const response of await both({
        'x-service-api-key': host.apiKey,
        authorization: `Bearer ${bearer}`,
      })) {
        expect(response.status, JSON.stringify(response.body)).toBe(200);
      }
      const keyAsBearer = await call('POST', '/v1/usage', {
        'x-service-api-key': host.apiKey,
        authorization: `Bearer ${host.apiKey}`,
      });
      expect(keyAsBearer.status).toBe(200);
    });

    it('both valid for different accounts: 400 saying which client setting to remove', async () => {
      for (const response of await both({
        'x-service-api-key': otherAccountKey,
        authorization: `Bearer ${bearer}`,
      })) {
        expect(response.status).toBe(400);
        expect(response.body.error).toBe(
          'Ambiguous credentials: the API key in the x-service-api-key header is for account "another_account", ' +
            'but the OAuth access token (Authorization: Bearer) you signed in with is for account "local". ' +
            'Remove one from the client\'s configuration: the x-service-api-key header to use "local", ' +
            'or sign out of this server in the client (or clear its stored OAuth tokens) to use "another_account".',
        );
      }
      const inUrl = await call('POST', `/v1/usage?api_key=${otherAccountKey}`, {
        authorization: `Bearer ${host.apiKey}`,
      });
      expect(inUrl.status).toBe(400);
      expect(((await inUrl.json()) as { error: string }).error).toMatch(
        /the API key in the URL \(\?api_key=\) is for account "another_account", but the API key in the Authorization header is for account "local"\. Remove one from the client's configuration: api_key= from the server URL to use "local", or the Authorization header to use "another_account"\./,
      );
    });

    /** The deployed authorizer's verdict (functions/auth/authorizer.ts) on a REQUEST event with `headers`. */
    const lambdaVerdict = async (headers: Record<string, string>, query: Record<string, string> = {}) => {
      const event = {
        type: 'REQUEST',
        methodArn: 'arn:aws:execute-api:us-east-1:123456789012:api/prod/POST/v1/usage',
        resource: '/v1/usage',
        path: '/v1/usage',
        httpMethod: 'POST',
        headers: { host: new URL(host.baseUrl).host, 'x-forwarded-proto': 'http', ...headers },
        multiValueHeaders: null,
        queryStringParameters: query,
        multiValueQueryStringParameters: null,
        pathParameters: null,
        stageVariables: null,
        requestContext: { path: '/v1/usage' },
      };
      return (await lambdaAuthorizer(event as never)).context as Record<string, string>;
    };

    it('the Lambda authorizer (AWS) gives the same verdicts', async () => {
      const handle = async (headers: Record<string, string>) => {
        const context = await lambdaVerdict(headers);
        return context.refusal
          ? `${context.refusal}: ${context.message}`
          : `${context.via} ${context.handle}`;
      };
      expect(await handle({ 'x-service-api-key': revokedKey, authorization: `Bearer ${bearer}` })).toBe(
        'oauth local',
      );
      expect(await handle({ 'x-service-api-key': host.apiKey, authorization: 'Bearer not-a-token' })).toBe(
        'api_key local',
      );
      expect(await handle({ 'x-service-api-key': host.apiKey, authorization: `Bearer ${bearer}` })).toBe(
        'oauth local',
      );
      expect(
        await handle({ 'x-service-api-key': otherAccountKey, authorization: `Bearer ${bearer}` }),
      ).toMatch(
        /^bad_request: Ambiguous credentials: the API key in the x-service-api-key header is for account "another_account"/,
      );
      expect(await handle({ 'x-service-api-key': revokedKey, authorization: 'Bearer not-a-token' })).toMatch(
        /^invalid_token: Both credentials were refused\./,
      );
    });

    it('with the result cache on (keyed on Authorization), the Lambda authorizer reads that header alone', async () => {
      process.env[AUTHORIZATION_ONLY_VARIABLE] = 'true';
      try {
        // A cached verdict would otherwise hand the key's account to anyone sending the same bad token.
        const badToken = await lambdaVerdict({
          'x-service-api-key': host.apiKey,
          authorization: 'Bearer not-a-token',
        });
        expect(badToken.refusal).toBe('invalid_token');
        expect(badToken.message).toMatch(/^Invalid access token: the token is not a JWT/);
        const other = await lambdaVerdict({
          'x-service-api-key': otherAccountKey,
          authorization: `Bearer ${bearer}`,
        });
        expect([other.refusal, other.handle]).toEqual([undefined, 'local']);
        const queryKey = await lambdaVerdict(
          { authorization: 'Bearer not-a-token' },
          { api_key: host.apiKey },
        );
        expect(queryKey.refusal).toBe('invalid_token');
      } finally {
        delete process.env[AUTHORIZATION_ONLY_VARIABLE];
      }
    });

    it('both refused: 401 naming both problems, with the invalid_token challenge', async () => {
      for (const response of await both({
        'x-service-api-key': revokedKey,
        authorization: 'Bearer not-a-token',
      })) {
        expect(response.status).toBe(401);
        expect(response.body.error).toMatch(
          /^Both credentials were refused\. The API key in the x-service-api-key header: Invalid API key: this key has been revoked\. The Authorization header: Invalid access token: the token is not a JWT/,
        );
        expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      }
    });
  });

  it('accepts an API key sent as a bearer token (clients that only know Authorization)', async () => {
    const response = await call('GET', '/v1/queries?limit=1', { authorization: `Bearer ${host.apiKey}` });
    expect(response.status).toBe(200);
  });
});
