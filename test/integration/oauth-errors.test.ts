/**
 * Every refusal of the authorization server and of the authorizer, against the local host: the
 * RFC 6749 §5.2 token errors, the authorization endpoint's error page (never a redirect for a bad
 * client or redirect URI) and its redirected errors, registration errors, and access tokens that
 * must not verify (alg none, tampered, unknown kid, wrong audience, expired, wrong scope).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRemoteJWKSet, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../functions/local/host';
import { issueAccessToken } from '../../functions/oauth/access-tokens';
import { issuerOf, LOGIN_RATE_LIMIT } from '../../functions/oauth/config';
import { signIn } from '../../functions/oauth/use-cases';
import { requestFrom } from '../support/local-address';
import {
  authorizationUrl,
  authorizeInBrowser,
  CookieJar,
  formFields,
  obtainTokens,
  pkcePair,
  registerClient,
  tokenRequest,
} from '../support/oauth-browser';
import { startTestHost, type TestHost } from '../support/test-host';

const REDIRECT = 'http://127.0.0.1:45678/callback';

describe('OAuth errors', () => {
  let host: TestHost;
  let clientId: string;
  beforeAll(async () => {
    host = await startTestHost();
    clientId = await registerClient(host.baseUrl, REDIRECT);
  });
  afterAll(() => host?.stop());

  /** A fresh code for `clientId` (with its verifier). */
  const freshCode = async (jar = new CookieJar()) => {
    const { verifier, challenge } = pkcePair();
    const callback = await authorizeInBrowser(
      authorizationUrl(host.baseUrl, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
      }),
      host.login,
      jar,
    );
    return { code: callback.searchParams.get('code')!, verifier };
  };

  const expectTokenError = async (form: Record<string, string | undefined>, error: string, status = 400) => {
    const response = await tokenRequest(host.baseUrl, form);
    expect(response.json).toMatchObject({ error, error_description: expect.any(String) });
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return response.json;
  };

  describe('token endpoint (RFC 6749 §5.2)', () => {
    it('missing parameters → invalid_request', async () => {
      const { code, verifier } = await freshCode();
      const complete = {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      };
      for (const missing of ['grant_type', 'client_id', 'code', 'redirect_uri', 'code_verifier']) {
        await expectTokenError({ ...complete, [missing]: undefined }, 'invalid_request');
      }
      await expectTokenError({ grant_type: 'refresh_token', client_id: clientId }, 'invalid_request');
    });

    it('a JSON body → invalid_request saying the body must be form-encoded (token and revocation)', async () => {
      for (const path of ['token', 'revoke']) {
        for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'text/plain' }]) {
          const response = await fetch(`${host.baseUrl}/oauth/mcp/${path}`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              grant_type: 'refresh_token',
              client_id: clientId,
              token: 'x',
              refresh_token: 'x',
            }),
          });
          expect(response.status).toBe(400);
          expect(response.headers.get('cache-control')).toBe('no-store');
          expect(await response.json()).toEqual({
            error: 'invalid_request',
            error_description: expect.stringMatching(
              /^The body must be application\/x-www-form-urlencoded \(RFC 6749 §4\.1\.3, RFC 7009 §2\.1\), not JSON: /,
            ),
          });
        }
      }
    });

    it('another grant type → unsupported_grant_type', async () => {
      for (const grant of ['password', 'client_credentials', 'implicit']) {
        await expectTokenError({ grant_type: grant, client_id: clientId }, 'unsupported_grant_type');
      }
    });

    it('unknown or deleted client → invalid_client (401), so clients re-register', async () => {
      await expectTokenError(
        {
          grant_type: 'authorization_code',
          client_id: 'mcp_unknown',
          code: 'x',
          redirect_uri: REDIRECT,
          code_verifier: 'x',
        },
        'invalid_client',
        401,
      );
      const doomed = await registerClient(host.baseUrl, REDIRECT);
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId: doomed });
      await host.services.oauth.deleteClient(doomed, new Date().toISOString());
      await expectTokenError(
        { grant_type: 'refresh_token', client_id: doomed, refresh_token: tokens.refresh_token },
        'invalid_client',
        401,
      );
    });

    it('verifier that does not match, other redirect_uri, unknown code, bad refresh token → invalid_grant', async () => {
      const { code, verifier } = await freshCode();
      const base = { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT };
      await expectTokenError({ ...base, code_verifier: pkcePair().verifier }, 'invalid_grant');
      await expectTokenError(
        { ...base, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:45678/other' },
        'invalid_grant',
      );
      await expectTokenError({ ...base, code: 'not-a-code', code_verifier: verifier }, 'invalid_grant');
      // The failed attempts did not use the code up.
      expect((await tokenRequest(host.baseUrl, { ...base, code_verifier: verifier })).status).toBe(200);
      for (const refreshToken of ['nope', `ort_01JAAAAAAAAAAAAAAAAAAAAAAA_${'A'.repeat(43)}`]) {
        await expectTokenError(
          { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken },
          'invalid_grant',
        );
      }
    });

    it('an expired code → invalid_grant', async () => {
      const { code, verifier } = await freshCode();
      const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
      const { sha256 } = await import('../../functions/oauth/use-cases');
      const { localDynamoClient } = await import('../../functions/aws/dynamo/client');
      const { doc, client } = localDynamoClient(host.dynamoEndpoint);
      await doc.send(
        new UpdateCommand({
          TableName: 'service',
          Key: { pk: `OAUTHCODE#${sha256(code)}`, sk: 'CODE' },
          UpdateExpression: 'SET expiresAt = :past',
          ExpressionAttributeValues: { ':past': Date.now() - 1000 },
        }),
      );
      client.destroy();
      const body = await expectTokenError(
        {
          grant_type: 'authorization_code',
          client_id: clientId,
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        },
        'invalid_grant',
      );
      expect(body.error_description).toMatch(/expired/);
    });

    it('a reused code → invalid_grant, and what it issued is revoked', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const bearer = { authorization: `Bearer ${tokens.access_token}` };
      expect((await fetch(`${host.baseUrl}/v1/queries?limit=1`, { headers: bearer })).status).toBe(200);
      const body = await expectTokenError(
        {
          grant_type: 'authorization_code',
          client_id: clientId,
          code: tokens.code,
          redirect_uri: REDIRECT,
          code_verifier: tokens.verifier,
        },
        'invalid_grant',
      );
      expect(body.error_description).toMatch(/already used.*revoked/);
      expect((await fetch(`${host.baseUrl}/v1/queries?limit=1`, { headers: bearer })).status).toBe(401);
      await expectTokenError(
        { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token },
        'invalid_grant',
      );
    });

    it('a refresh token from another client → invalid_grant', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const other = await registerClient(host.baseUrl, REDIRECT, 'Other client');
      const body = await expectTokenError(
        { grant_type: 'refresh_token', client_id: other, refresh_token: tokens.refresh_token },
        'invalid_grant',
      );
      expect(body.error_description).toMatch(/another client/);
      // Its own client still refreshes.
      const own = await tokenRequest(host.baseUrl, {
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: tokens.refresh_token,
      });
      expect(own.status).toBe(200);
    });

    it('a concurrent refresh within the grace window gets tokens too; both new tokens work', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const form = { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token };
      const [first, second] = await Promise.all([
        tokenRequest(host.baseUrl, form),
        tokenRequest(host.baseUrl, form),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      for (const answer of [first, second]) {
        const next = await tokenRequest(host.baseUrl, {
          ...form,
          refresh_token: String(answer.json.refresh_token),
        });
        expect(next.status).toBe(200);
        // Each rotation replaces the token; the one after must chain from the newest.
        form.refresh_token = String(next.json.refresh_token);
        break;
      }
    });

    it('any rotated-out refresh token revokes the family, not only the one replaced last (RFC 9700 §4.14.2)', async () => {
      // The victim's first token, stolen; the attacker refreshes twice and keeps the newest.
      const stolen = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const refresh = (refreshToken: string) =>
        tokenRequest(host.baseUrl, {
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: refreshToken,
        });
      const first = await refresh(stolen.refresh_token);
      expect(first.status).toBe(200);
      const second = await refresh(String(first.json.refresh_token));
      expect(second.status).toBe(200);
      const attackerAccess = { authorization: `Bearer ${String(second.json.access_token)}` };
      expect((await fetch(`${host.baseUrl}/v1/queries?limit=1`, { headers: attackerAccess })).status).toBe(
        200,
      );
      // The victim presents the first token (two rotations old): the whole family is revoked.
      const replay = await expectTokenError(
        { grant_type: 'refresh_token', client_id: clientId, refresh_token: stolen.refresh_token },
        'invalid_grant',
      );
      expect(replay.error_description).toMatch(/already used.*revoked/);
      const newest = await expectTokenError(
        {
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: String(second.json.refresh_token),
        },
        'invalid_grant',
      );
      expect(newest.error_description).toMatch(/revoked/);
      const refused = await fetch(`${host.baseUrl}/v1/queries?limit=1`, { headers: attackerAccess });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/revoked/);
      const mcp = await fetch(`${host.baseUrl}/mcp/v1`, {
        method: 'POST',
        headers: {
          ...attackerAccess,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(401);
    });

    it('a well-formed token of a live family that it never issued counts as a replay too', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const familyId = /^ort_([^_]+)_/.exec(tokens.refresh_token)![1];
      await expectTokenError(
        {
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: `ort_${familyId}_${'B'.repeat(43)}`,
        },
        'invalid_grant',
      );
      await expectTokenError(
        { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token },
        'invalid_grant',
      );
    });

    it('several refreshes racing one rotation each get a token that stays current until the next rotation', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const form = { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token };
      // Within the grace window, one after another: the same as racing, without the timing.
      const answers = [];
      for (let attempt = 0; attempt < 3; attempt++) answers.push(await tokenRequest(host.baseUrl, form));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      const { sha256 } = await import('../../functions/oauth/use-cases');
      const familyId = /^ort_([^_]+)_/.exec(tokens.refresh_token)![1]!;
      const family = (await host.services.oauth.getFamily(familyId))!;
      const current = [family.currentHash, ...(family.graceHashes ?? [])];
      for (const answer of answers) expect(current).toContain(sha256(String(answer.json.refresh_token)));
      // The client keeps the second answer (the first grace token); it still refreshes.
      const next = await tokenRequest(host.baseUrl, {
        ...form,
        refresh_token: String(answers[1]!.json.refresh_token),
      });
      expect(next.status).toBe(200);
    });

    it('a resource that is not ours → invalid_target; another scope → invalid_scope', async () => {
      const { code, verifier } = await freshCode();
      const base = {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      };
      await expectTokenError({ ...base, resource: 'https://elsewhere.example/mcp' }, 'invalid_target');
      await expectTokenError({ ...base, scope: 'mcp:service:read' }, 'invalid_scope');
      // The MCP endpoint's own URL (what the resource metadata names) is ours.
      expect((await tokenRequest(host.baseUrl, { ...base, resource: `${host.baseUrl}/mcp/v1` })).status).toBe(
        200,
      );
      // So is it with the tool selection a client keeps in the URL (RFC 8707 allows a query).
      const again = await freshCode();
      const selected = `${host.baseUrl}/mcp/v1?features=discovery&read_only=true`;
      const answer = await tokenRequest(host.baseUrl, {
        ...base,
        code: again.code,
        code_verifier: again.verifier,
        resource: selected,
      });
      expect(answer.status).toBe(200);
    });
  });

  describe('authorization endpoint', () => {
    const get = (params: Record<string, string | undefined>) =>
      fetch(authorizationUrl(host.baseUrl, params), { redirect: 'manual' });
    const challenge = pkcePair().challenge;

    it('a bad client_id or redirect_uri shows an error page and never redirects', async () => {
      for (const params of [
        { client_id: 'mcp_unknown', redirect_uri: REDIRECT, code_challenge: challenge },
        { client_id: undefined, redirect_uri: REDIRECT, code_challenge: challenge },
        { client_id: clientId, redirect_uri: 'https://attacker.example/callback', code_challenge: challenge },
        { client_id: clientId, redirect_uri: 'http://127.0.0.1:45678/other-path', code_challenge: challenge },
        { client_id: clientId, redirect_uri: undefined, code_challenge: challenge },
      ]) {
        const response = await get(params);
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(response.headers.get('content-type')).toMatch(/text\/html/);
        expect(await response.text()).toMatch(/cannot continue/);
      }
    });

    it('a loopback redirect may use any port (RFC 8252 §7.3)', async () => {
      const response = await get({
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:9999/callback',
        code_challenge: challenge,
      });
      expect(response.status).toBe(200);
    });

    it('plain PKCE or missing PKCE → invalid_request at the redirect URI', async () => {
      for (const params of [
        { code_challenge_method: 'plain' },
        { code_challenge: undefined },
        { code_challenge_method: undefined },
      ]) {
        const response = await get({
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          ...params,
        });
        expect(response.status).toBe(303);
        const location = new URL(response.headers.get('location')!);
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
        expect(location.searchParams.get('error')).toBe('invalid_request');
      }
    });

    it('a resource that is not ours → invalid_target; another scope → invalid_scope; other response_type', async () => {
      for (const [params, error] of [
        [{ resource: 'https://elsewhere.example' }, 'invalid_target'],
        [{ scope: 'mcp:service:read' }, 'invalid_scope'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
      ] as const) {
        const response = await get({
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          ...params,
        });
        const location = new URL(response.headers.get('location')!);
        expect(location.searchParams.get('error')).toBe(error);
        expect(location.searchParams.get('state')).toBe(params === undefined ? null : 'state-1');
      }
    });

    it('without state, resource or scope (all optional with PKCE): a code, and no state sent back', async () => {
      const { verifier, challenge: own } = pkcePair();
      const callback = await authorizeInBrowser(
        authorizationUrl(host.baseUrl, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: own,
          state: undefined,
          resource: undefined,
          scope: undefined,
        }),
        host.login,
      );
      expect(callback.searchParams.has('state')).toBe(false);
      expect(callback.searchParams.get('iss')).toBe(issuerOf(host.baseUrl));
      const code = callback.searchParams.get('code')!;
      const tokens = await tokenRequest(host.baseUrl, {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      expect(tokens.status).toBe(200);
      expect(tokens.json.scope).toBe('mcp:service:full');
      const bearer = { authorization: `Bearer ${String(tokens.json.access_token)}` };
      expect((await fetch(`${host.baseUrl}/v1/queries?limit=1`, { headers: bearer })).status).toBe(200);
      // A refused request without state is redirected without one too.
      const refused = await get({
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        state: undefined,
        response_type: 'token',
      });
      const location = new URL(refused.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('unsupported_response_type');
      expect(location.searchParams.has('state')).toBe(false);
    });

    it('scopes the service does not know (OIDC ones, offline_access) are ignored (RFC 6749 §3.3); the grant is mcp:service:full', async () => {
      for (const scope of [
        'openid mcp:service:full offline_access',
        'openid profile email offline_access',
        'mcp:service:full other-server:read',
      ]) {
        const { verifier, challenge: own } = pkcePair();
        const callback = await authorizeInBrowser(
          authorizationUrl(host.baseUrl, {
            client_id: clientId,
            redirect_uri: REDIRECT,
            code_challenge: own,
            scope,
          }),
          host.login,
        );
        expect(callback.searchParams.get('error_description')).toBeNull();
        const tokens = await tokenRequest(host.baseUrl, {
          grant_type: 'authorization_code',
          client_id: clientId,
          code: callback.searchParams.get('code')!,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          scope,
        });
        expect(tokens.status).toBe(200);
        expect(tokens.json.scope).toBe('mcp:service:full');
        const refreshed = await tokenRequest(host.baseUrl, {
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: String(tokens.json.refresh_token),
          scope,
        });
        expect(refreshed.json.scope).toBe('mcp:service:full');
      }
    });

    it('pages are escaped, framed by nothing, and set cookies HttpOnly, SameSite=Lax (no Secure on loopback)', async () => {
      const named = await registerClient(host.baseUrl, REDIRECT, '<script>alert(1)</script>');
      const response = await get({ client_id: named, redirect_uri: REDIRECT, code_challenge: challenge });
      const html = await response.text();
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).not.toContain('<script>');
      expect(response.headers.get('content-security-policy')).toMatch(
        /default-src 'none'.*frame-ancestors 'none'/,
      );
      const cookie = response.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/);
    });

    it('the pages name the service, say which sign-in works, and how to end access later', async () => {
      const jar = new CookieJar();
      const url = authorizationUrl(host.baseUrl, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
      });
      const login = await fetch(url);
      jar.store(login);
      const loginHtml = await login.text();
      expect(loginHtml).toContain('<h1>Sign in to Onchain SQL service</h1>');
      expect(loginHtml).toMatch(/<\/strong> <span class="badge"[^>]*>unverified<\/span> wants to use your/);
      expect(loginHtml).toMatch(
        /Running locally: use the <strong>Sign-in<\/strong> email and password that <code>npm start<\/code> printed/,
      );
      expect(loginHtml).toMatch(/An API key \(<code>osk_…<\/code>\) does not sign in here/);
      const fields = formFields(loginHtml);
      fields.set('email', host.login.email);
      fields.set('password', host.login.password);
      const signedIn = await fetch(`${host.baseUrl}/oauth/mcp/authorize`, {
        method: 'POST',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: fields,
        redirect: 'manual',
      });
      jar.store(signedIn);
      const other = await registerClient(host.baseUrl, REDIRECT, 'Consent page client');
      const consent = await fetch(
        authorizationUrl(host.baseUrl, {
          client_id: other,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
        }),
        { headers: { cookie: jar.header() } },
      );
      const consentHtml = await consent.text();
      expect(consentHtml).toContain('<h1>Allow access?</h1>');
      expect(consentHtml).toContain('the Onchain SQL service account');
      // A name sent to open registration is the client's own claim: marked so, and where the
      // browser returns to (what does identify it) stands out.
      expect(consentHtml).toContain(
        '<strong>Consent page client</strong> <span class="badge" title="Anyone can register an application under any name">unverified</span> wants access',
      );
      expect(consentHtml).toContain(
        '<p class="target">If you allow, your browser returns to <strong>127.0.0.1:45678</strong> (an application on this computer).',
      );
      expect(consentHtml).toContain('the application chose this name itself when it registered');
      expect(consentHtml).toContain(
        'To end this access later, disconnect or log out of this server in <strong>Consent page client</strong>: a client that supports token revocation then ends it',
      );
      expect(consentHtml).not.toContain('revoke-client');
    });

    it('refuses a form without the CSRF token, and a wrong password', async () => {
      const jar = new CookieJar();
      const page = await fetch(
        authorizationUrl(host.baseUrl, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
        }),
      );
      jar.store(page);
      const fields = formFields(await page.text());
      fields.set('email', host.login.email);
      fields.set('password', host.login.password);
      const post = (body: URLSearchParams, cookie: string) =>
        fetch(`${host.baseUrl}/oauth/mcp/authorize`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body,
          redirect: 'manual',
        });
      const noCookie = await post(fields, '');
      expect(noCookie.status).toBe(403);
      const forged = new URLSearchParams(fields);
      forged.set('csrf_token', 'forged');
      expect((await post(forged, jar.header())).status).toBe(403);
      const wrong = new URLSearchParams(fields);
      wrong.set('password', 'not the password');
      const refused = await post(wrong, jar.header());
      expect(refused.status).toBe(401);
      expect(await refused.text()).toMatch(/Wrong email or password/);
      const ok = await post(fields, jar.header());
      expect(ok.status).toBe(303);
      expect(ok.headers.get('set-cookie')).toMatch(/^mcp_oauth_session=.*HttpOnly; SameSite=Lax$/);
    });

    // Twelve scrypt checks: slow on a loaded machine.
    it('locks only the email and address that failed: the owner still signs in from another address', {
      timeout: 120_000,
    }, async () => {
      // Failures count in fixed windows: attempts that straddle a window's end start counting
      // afresh (this failed once at 01:00:00). Start with a minute of the window to spare.
      const windowMs = LOGIN_RATE_LIMIT.windowSeconds * 1000;
      const left = windowMs - (Date.now() % windowMs);
      if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
      const page = await fetch(
        authorizationUrl(host.baseUrl, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
        }),
      );
      const jar = new CookieJar();
      jar.store(page);
      const fields = formFields(await page.text());
      fields.set('email', host.login.email);
      // The attacker guesses the owner's password from another loopback address (the local
      // host takes the socket's address as the client's, as API Gateway's sourceIp in AWS).
      const signInFrom = (localAddress: string, password: string) => {
        const body = new URLSearchParams(fields);
        body.set('password', password);
        return requestFrom(localAddress, `${host.baseUrl}/oauth/mcp/authorize`, {
          method: 'POST',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        });
      };
      const statuses: number[] = [];
      for (let attempt = 0; attempt <= LOGIN_RATE_LIMIT.perEmailAndAddress; attempt++) {
        const response = await signInFrom('127.0.0.2', 'guess');
        statuses.push(response.status);
        if (response.status === 429) {
          // The page's minutes and Retry-After tell the same wait: what is left of the window.
          const retryAfter = Number(response.headers['retry-after']);
          expect(retryAfter).toBeGreaterThan(0);
          expect(retryAfter).toBeLessThanOrEqual(LOGIN_RATE_LIMIT.windowSeconds);
          const minutes = Math.ceil(retryAfter / 60);
          expect(response.body).toMatch(
            new RegExp(`Too many failed sign-in attempts. Try again in ${minutes} minutes?\\.`),
          );
        }
      }
      expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      // Locked from there, even with the right password …
      expect((await signInFrom('127.0.0.2', host.login.password)).status).toBe(429);
      // … while the owner, elsewhere, signs in.
      const owner = await signInFrom('127.0.0.1', host.login.password);
      expect(owner.status).toBe(303);
    });

    it('past the per-email ceiling (a guess from many addresses) sign-in is slower, never refused', {
      timeout: 60_000,
    }, async () => {
      const limits = { ...LOGIN_RATE_LIMIT, perEmail: 2, slowdownSeconds: 1 };
      const email = host.login.email;
      for (const address of ['198.51.100.1', '198.51.100.2']) {
        expect(await signIn(host.services, email, 'guess', address, Date.now(), limits)).toBeUndefined();
      }
      const started = Date.now();
      const accountId = await signIn(
        host.services,
        email,
        host.login.password,
        '198.51.100.3',
        Date.now(),
        limits,
      );
      expect(accountId).toBe(host.accountId);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    });

    it('remembers consent per account and client: the second authorization skips the consent page', async () => {
      const jar = new CookieJar();
      await freshCode(jar);
      const { challenge: second } = pkcePair();
      const response = await fetch(
        authorizationUrl(host.baseUrl, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: second,
        }),
        { headers: { cookie: jar.header() }, redirect: 'manual' },
      );
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    });

    it('a denial goes back with access_denied', async () => {
      const other = await registerClient(host.baseUrl, REDIRECT, 'Denied client');
      const callback = await authorizeInBrowser(
        authorizationUrl(host.baseUrl, {
          client_id: other,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
        }),
        host.login,
        new CookieJar(),
        'deny',
      );
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('state')).toBe('state-1');
    });
  });

  describe('metadata', () => {
    it('the protected resource metadata points at documentation that exists', async () => {
      for (const path of ['', '/mcp/v1', '/v1']) {
        const metadata = (await (
          await fetch(`${host.baseUrl}/.well-known/oauth-protected-resource${path}`)
        ).json()) as Record<string, string>;
        expect(metadata.resource_documentation).toBe(`${host.baseUrl}/docs`);
        const page = await fetch(metadata.resource_documentation!);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/text\/html/);
      }
    });

    /** A GET naming another Host (fetch keeps the socket's), from the host's own address. */
    const getWithHost = (path: string, hostHeader: string, headers: Record<string, string> = {}) =>
      requestFrom('127.0.0.1', `${host.baseUrl}${path}`, {
        method: 'GET',
        headers: { host: hostHeader, ...headers },
      });

    it('a foreign Host is not reflected: the metadata name the configured base URL and issuer', async () => {
      const issuer = issuerOf(host.baseUrl);
      const resource = JSON.parse(
        (await getWithHost('/.well-known/oauth-protected-resource/mcp/v1', 'evil.example')).body,
      );
      expect(resource).toMatchObject({
        resource: `${host.baseUrl}/mcp/v1`,
        authorization_servers: [issuer],
        resource_documentation: `${host.baseUrl}/docs`,
      });
      const server = JSON.parse(
        (await getWithHost('/.well-known/oauth-authorization-server/oauth/mcp', 'evil.example')).body,
      );
      expect(server).toMatchObject({ issuer, token_endpoint: `${issuer}/token` });
      const refused = await getWithHost('/mcp/v1', 'evil.example', { accept: 'text/event-stream' });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain(
        `resource_metadata="${host.baseUrl}/.well-known/oauth-protected-resource/mcp/v1"`,
      );
    });

    it('the sign-in pages do not send a browser to a foreign Host either', async () => {
      const url = new URL(
        authorizationUrl(host.baseUrl, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: pkcePair().challenge,
        }),
      );
      const page = await getWithHost(`${url.pathname}${url.search}`, 'evil.example');
      const cookie = [page.headers['set-cookie']]
        .flat()
        .map((header) => String(header).split(';')[0])
        .join('; ');
      const fields = formFields(page.body);
      fields.set('email', host.login.email);
      fields.set('password', host.login.password);
      const signedIn = await requestFrom('127.0.0.1', `${host.baseUrl}/oauth/mcp/authorize`, {
        method: 'POST',
        headers: { host: 'evil.example', cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: fields.toString(),
      });
      expect(signedIn.status).toBe(303);
      expect(String(signedIn.headers.location)).toMatch(
        new RegExp(`^${host.baseUrl}/oauth/mcp/authorize\\?`),
      );
    });

    it('localhost is an alias of 127.0.0.1: a token got through either works through both, under any Host', async () => {
      const port = new URL(host.baseUrl).port;
      const alias = `http://localhost:${port}`;
      // What an MCP client configured with localhost reads first: its own URL as the resource
      // (RFC 9728 §3.3, which the MCP SDK checks), and the one issuer.
      const resource = JSON.parse(
        (await getWithHost('/.well-known/oauth-protected-resource/mcp/v1', `localhost:${port}`)).body,
      );
      expect(resource).toMatchObject({
        resource: `${alias}/mcp/v1`,
        authorization_servers: [issuerOf(host.baseUrl)],
      });
      // The whole flow through the alias (registration, sign-in, consent, token with
      // resource=http://localhost:…), then the token at the canonical address, and the reverse.
      const viaAlias = await obtainTokens(alias, host.login);
      const viaCanonical = await obtainTokens(host.baseUrl, host.login);
      for (const token of [viaAlias.access_token, viaCanonical.access_token]) {
        for (const hostHeader of [`127.0.0.1:${port}`, `localhost:${port}`, 'evil.example']) {
          const answer = await getWithHost('/v1/queries?limit=1', hostHeader, {
            authorization: `Bearer ${token}`,
          });
          expect(answer.status, `${hostHeader}: ${answer.body}`).toBe(200);
        }
      }
    });
  });

  describe('revocation (RFC 7009)', () => {
    const revoke = async (form: Record<string, string | undefined>) => {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) if (value !== undefined) body.set(name, value);
      const response = await fetch(`${host.baseUrl}/oauth/mcp/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        text,
        json: text ? JSON.parse(text) : undefined,
      };
    };
    const refresh = (refreshToken: string, client = clientId) =>
      tokenRequest(host.baseUrl, {
        grant_type: 'refresh_token',
        client_id: client,
        refresh_token: refreshToken,
      });
    const bearerStatus = async (accessToken: string) =>
      (
        await fetch(`${host.baseUrl}/v1/queries?limit=1`, {
          headers: { authorization: `Bearer ${accessToken}` },
        })
      ).status;

    it('is in the authorization server metadata, for public clients', async () => {
      const metadata = await (
        await fetch(`${host.baseUrl}/.well-known/oauth-authorization-server/oauth/mcp`)
      ).json();
      expect(metadata).toMatchObject({
        revocation_endpoint: `${host.baseUrl}/oauth/mcp/revoke`,
        revocation_endpoint_auth_methods_supported: ['none'],
      });
    });

    it('revoking the refresh token (oauth4webapi) ends the grant: refresh and access tokens, and the consent', async () => {
      const jar = new CookieJar();
      // A client of its own: the consent goes with the client's last live grant on the account.
      const own = await registerClient(host.baseUrl, REDIRECT, 'Disconnecting client');
      const tokens = await obtainTokens(host.baseUrl, host.login, {
        clientId: own,
        redirectUri: REDIRECT,
        jar,
      });
      expect(await bearerStatus(tokens.access_token)).toBe(200);
      const issuer = new URL(`${host.baseUrl}/oauth/mcp`);
      const insecure = { [oauth.allowInsecureRequests]: true };
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
      );
      const response = await oauth.revocationRequest(
        as,
        { client_id: own, token_endpoint_auth_method: 'none' },
        oauth.None(),
        tokens.refresh_token,
        { additionalParameters: { token_type_hint: 'refresh_token' }, ...insecure },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await oauth.processRevocationResponse(response)).toBeUndefined();
      const refused = await refresh(tokens.refresh_token, own);
      expect(refused.json).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/revoked/),
      });
      expect(await bearerStatus(tokens.access_token)).toBe(401);
      // Connecting again asks for consent again (the browser session is still signed in).
      const page = await fetch(
        authorizationUrl(host.baseUrl, {
          client_id: own,
          redirect_uri: REDIRECT,
          code_challenge: pkcePair().challenge,
        }),
        { headers: { cookie: jar.header() }, redirect: 'manual' },
      );
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Allow access?');
    });

    it('revoking an access token, even an expired one, ends its grant too', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      expect(
        (await revoke({ client_id: clientId, token: tokens.access_token, token_type_hint: 'access_token' }))
          .status,
      ).toBe(200);
      expect(await bearerStatus(tokens.access_token)).toBe(401);
      expect((await refresh(tokens.refresh_token)).json.error).toBe('invalid_grant');

      const again = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const sid = JSON.parse(Buffer.from(again.access_token.split('.')[1]!, 'base64url').toString()).sid;
      const expired = await issueAccessToken(
        host.services.signingKeys,
        {
          issuer: issuerOf(host.baseUrl),
          audience: host.baseUrl,
          sub: host.accountId,
          client_id: clientId,
          scope: 'mcp:service:full',
          sid,
        },
        Date.now() - 3600_000,
      );
      // A wrong hint is only a hint.
      expect(
        (await revoke({ client_id: clientId, token: expired.token, token_type_hint: 'refresh_token' }))
          .status,
      ).toBe(200);
      expect((await refresh(again.refresh_token)).json.error).toBe('invalid_grant');
    });

    it('an unknown, malformed or already revoked token → 200 and nothing happens (RFC 7009 §2.2)', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const { privateKey } = await generateKeyPair('ES256');
      const foreign = await new SignJWT({ sid: 'x', client_id: clientId })
        .setProtectedHeader({ alg: 'ES256', kid: 'not-ours' })
        .setIssuer(issuerOf(host.baseUrl))
        .sign(privateKey);
      for (const token of ['nope', `ort_01JAAAAAAAAAAAAAAAAAAAAAAA_${'A'.repeat(43)}`, foreign, 'a.b.c']) {
        const answer = await revoke({ client_id: clientId, token });
        expect(answer.status).toBe(200);
        expect(answer.text).toBe('');
      }
      expect((await refresh(tokens.refresh_token)).status).toBe(200);
      const revoked = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      expect((await revoke({ client_id: clientId, token: revoked.refresh_token })).status).toBe(200);
      expect((await revoke({ client_id: clientId, token: revoked.refresh_token })).status).toBe(200);
    });

    it("errors as at the token endpoint: no client_id or token, an unknown client, another client's token, an API key", async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const expectError = async (form: Record<string, string | undefined>, error: string, status: number) => {
        const answer = await revoke(form);
        expect(answer.json).toMatchObject({ error, error_description: expect.any(String) });
        expect(answer.status).toBe(status);
        expect(answer.headers.get('cache-control')).toBe('no-store');
        return answer.json as Record<string, string>;
      };
      await expectError({ token: tokens.refresh_token }, 'invalid_request', 400);
      await expectError({ client_id: clientId }, 'invalid_request', 400);
      await expectError({ client_id: 'mcp_unknown', token: tokens.refresh_token }, 'invalid_client', 401);
      const other = await registerClient(host.baseUrl, REDIRECT, 'Other revoker');
      const foreign = await expectError(
        { client_id: other, token: tokens.refresh_token },
        'invalid_grant',
        400,
      );
      expect(foreign.error_description).toMatch(/another client; it was not revoked/);
      const key = await expectError(
        { client_id: clientId, token: host.apiKey },
        'unsupported_token_type',
        400,
      );
      expect(key.error_description).toMatch(/API key/);
      // None of these revoked anything.
      expect((await refresh(tokens.refresh_token)).status).toBe(200);
    });
  });

  describe('registration (RFC 7591)', () => {
    const register = (metadata: unknown) =>
      fetch(`${host.baseUrl}/oauth/mcp/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(metadata),
      });

    it('refuses bad redirect URIs with invalid_redirect_uri', async () => {
      for (const redirect_uris of [
        ['http://example.com/callback'],
        ['https://example.com/callback#fragment'],
        ['javascript:alert(1)'],
        ['not a url'],
        [],
        undefined,
      ]) {
        const response = await register({ redirect_uris, client_name: 'bad' });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: 'invalid_redirect_uri' });
      }
    });

    it('a registration past the limits gets 400 saying the limit, never a 500 (the 4,000-URI body)', async () => {
      const many = Array.from(
        { length: 4000 },
        (_, index) => `https://app.example/callback/${index}/${'x'.repeat(80)}`,
      );
      const huge = await register({ redirect_uris: many, client_name: 'big' });
      expect(huge.status).toBe(400);
      const hugeBody = (await huge.json()) as Record<string, string>;
      expect(hugeBody.error).toBe('invalid_client_metadata');
      expect(hugeBody.error_description).toMatch(/at most 65536 .*at most 10 redirect URIs/);
      // Small enough to read, but more URIs than allowed, or one too long.
      const eleven = await register({ redirect_uris: many.slice(0, 11) });
      expect(eleven.status).toBe(400);
      expect(await eleven.json()).toMatchObject({
        error: 'invalid_redirect_uri',
        error_description: expect.stringMatching(/11 entries; at most 10 redirect URIs/),
      });
      const long = await register({ redirect_uris: [`https://app.example/${'a'.repeat(2000)}`] });
      expect(long.status).toBe(400);
      expect(await long.json()).toMatchObject({
        error: 'invalid_redirect_uri',
        error_description: expect.stringMatching(/2020 characters; at most 2000/),
      });
      const ten = await register({ redirect_uris: many.slice(0, 10), client_name: 'ten' });
      expect(ten.status).toBe(201);
      for (const [metadata, description] of [
        [{ client_name: 'x'.repeat(201) }, /client_name must be a string of at most 200/],
        [
          { logo_uri: `https://app.example/${'l'.repeat(2000)}` },
          /logo_uri must be a string of at most 2000/,
        ],
        [{ client_uri: 42 }, /client_uri must be a string/],
      ] as const) {
        const response = await register({ redirect_uris: [REDIRECT], ...metadata });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          error: 'invalid_client_metadata',
          error_description: expect.stringMatching(description),
        });
      }
    });

    it('refuses redirect URIs with surrounding whitespace or user information', async () => {
      for (const uri of [
        '  https://claude.ai/cb ',
        'https://claude.ai/cb\n',
        'https://app.example/a b',
        'https://user:pw@evil.example/cb',
        'https://user@evil.example/cb',
      ]) {
        const response = await register({ redirect_uris: [uri], client_name: 'spaced' });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          error: 'invalid_redirect_uri',
          error_description: expect.stringMatching(/whitespace or control characters|user information/),
        });
      }
    });

    it('refuses a client_name with control or bidirectional-text characters', async () => {
      for (const name of ['a\u0000b', 'a\u202Eevil', 'line\nbreak', 'x\u2066y\u2069']) {
        const response = await register({ redirect_uris: [REDIRECT], client_name: name });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          error: 'invalid_client_metadata',
          error_description: expect.stringMatching(/control characters or bidirectional-text controls/),
        });
      }
      // Other scripts and emoji are names like any other.
      const fine = await register({ redirect_uris: [REDIRECT], client_name: 'Клиент 🤖 عربي' });
      expect(fine.status).toBe(201);
    });

    it('refuses confidential clients and other grant types with invalid_client_metadata', async () => {
      for (const extra of [
        { token_endpoint_auth_method: 'client_secret_basic' },
        { grant_types: ['client_credentials'] },
        { response_types: ['token'] },
      ]) {
        const response = await register({ redirect_uris: [REDIRECT], ...extra });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata' });
      }
    });

    it('accepts https, loopback http and a native app scheme, and never issues a secret', async () => {
      const response = await register({
        redirect_uris: [
          'https://app.example/cb',
          'http://localhost:8080/cb',
          'cursor://anysphere.cursor-mcp/oauth/callback',
        ],
      });
      expect(response.status).toBe(201);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body.token_endpoint_auth_method).toBe('none');
      expect(body).not.toHaveProperty('client_secret');
    });
  });

  describe('access tokens the authorizer refuses (401 invalid_token, 403 insufficient_scope)', () => {
    let valid: string;
    let sid: string;
    beforeAll(async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      valid = tokens.access_token;
      sid = JSON.parse(Buffer.from(valid.split('.')[1]!, 'base64url').toString()).sid;
    });

    const callWith = (token: string) =>
      fetch(`${host.baseUrl}/v1/queries?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    const expectInvalid = async (token: string, description: RegExp) => {
      const response = await callWith(token);
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate')!;
      expect(challenge).toMatch(
        /^Bearer resource_metadata="[^"]+", scope="mcp:service:full", error="invalid_token"/,
      );
      expect(challenge).toMatch(description);
    };
    const claims = () => JSON.parse(Buffer.from(valid.split('.')[1]!, 'base64url').toString());

    it('accepts the valid token', async () => {
      expect((await callWith(valid)).status).toBe(200);
    });

    it('alg none', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', kid: 'x', typ: 'at+jwt' })).toString(
        'base64url',
      );
      const payload = Buffer.from(JSON.stringify(claims())).toString('base64url');
      await expectInvalid(`${header}.${payload}.`, /alg must be ES256/);
    });

    it('a tampered signature or payload', async () => {
      const [h, p, s] = valid.split('.');
      const flipped = `${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`;
      await expectInvalid(`${h}.${p}.${flipped}`, /signature does not verify/);
      const changed = Buffer.from(JSON.stringify({ ...claims(), sub: 'someone-else' })).toString('base64url');
      await expectInvalid(`${h}.${changed}.${s}`, /signature does not verify/);
    });

    it('an unknown kid', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      const forged = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'ES256', kid: 'not-ours', typ: 'at+jwt' })
        .sign(privateKey);
      await expectInvalid(forged, /unknown signing key/);
    });

    const signed = (overrides: { audience?: string; now?: number; scope?: string }) =>
      issueAccessToken(
        host.services.signingKeys,
        {
          issuer: issuerOf(host.baseUrl),
          audience: overrides.audience ?? host.baseUrl,
          sub: host.accountId,
          client_id: clientId,
          scope: overrides.scope ?? 'mcp:service:full',
          sid,
        },
        overrides.now,
      ).then((issued) => issued.token);

    it('the audience holds the base URL and the MCP resource URL: jose verifies either (RFC 8707, RFC 9068)', async () => {
      const jwks = createRemoteJWKSet(new URL(`${host.baseUrl}/oauth/mcp/jwks.json`));
      for (const audience of [`${host.baseUrl}/mcp/v1`, host.baseUrl]) {
        const { payload } = await jwtVerify(valid, jwks, {
          issuer: issuerOf(host.baseUrl),
          audience,
          typ: 'at+jwt',
        });
        expect(payload.aud).toEqual([host.baseUrl, `${host.baseUrl}/mcp/v1`]);
      }
      const mcp = await fetch(`${host.baseUrl}/mcp/v1`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${valid}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(200);
    });

    it('a wrong audience', async () => {
      await expectInvalid(await signed({ audience: 'https://other.example' }), /aud claim/);
    });

    it('an expired token', async () => {
      await expectInvalid(await signed({ now: Date.now() - 3600_000 }), /expired/);
    });

    it('a token without the scope → 403 insufficient_scope', async () => {
      const response = await callWith(await signed({ scope: 'other:scope' }));
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    });

    it('revoke-client of an unknown client is an error (the admin CLI exits 1 saying so)', async () => {
      const { revokeClientAccess } = await import('../../functions/oauth/use-cases');
      await expect(revokeClientAccess(host.services, host.accountId, 'mcp_doesnotexist')).rejects.toThrow(
        /Unknown client "mcp_doesnotexist": it is not registered and has no grant on this account/,
      );
      const cli = await promisify(execFile)(
        join(REPO_ROOT, 'node_modules/.bin/tsx'),
        [
          'functions/local/admin-cli.ts',
          '--data-dir',
          host.dataDir,
          'revoke-client',
          '--account',
          host.accountId,
          '--client',
          'mcp_doesnotexist',
        ],
        { cwd: REPO_ROOT },
      ).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(cli?.code).toBe(1);
      expect(cli?.stderr).toMatch(/^error: Unknown client "mcp_doesnotexist"/m);
      expect(cli?.stdout).not.toMatch(/Revoked/);
    }, 60_000);

    it('a revoked client: its access token stops at once, its refresh token too', async () => {
      const tokens = await obtainTokens(host.baseUrl, host.login, { clientId, redirectUri: REDIRECT });
      const { revokeClientAccess } = await import('../../functions/oauth/use-cases');
      expect(await revokeClientAccess(host.services, host.accountId, clientId)).toBeGreaterThan(0);
      await expectInvalid(tokens.access_token, /revoked/);
      await expectTokenError(
        { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token },
        'invalid_grant',
      );
    });
  });
});
