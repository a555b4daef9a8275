import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { z } from 'zod';
import { OAUTH_SCOPE } from '../core/oauth';
import { canonicalBaseUrl, resourceBaseUrl } from '../http/request-url';
import { HttpResponse } from '../http/responses';
import { routeHandler } from '../http/route-handler';
import {
  ClientMetadataError,
  clientFromMetadata,
  clientLabel,
  isLoopbackHttp,
  newClientId,
  REGISTRATION_LIMITS,
  redirectTarget,
} from './clients';
import { ISSUER_PATH, issuerOf } from './config';
import { consentPage, errorPage, loginPage, PAGE_HEADERS, SERVICE_NAME } from './pages';
import {
  AUTHORIZATION_PARAMETERS,
  type AuthorizationCheck,
  admitRegistration,
  checkAuthorizationRequest,
  issueAuthorizationCode,
  OAuthError,
  RegistrationThrottledError,
  redirectWith,
  revokeToken,
  SignInThrottledError,
  sessionAccount,
  signIn,
  startSession,
  tokenGrant,
} from './use-cases';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
/** RFC 6749 §5.1: token responses are never cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const CORS = { 'access-control-allow-origin': '*' };

function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return new HttpResponse(status, JSON.stringify(body), { ...JSON_HEADERS, ...headers });
}

/**
 * RFC 9728 metadata for a protected resource: the base URL, the MCP endpoint or the REST API,
 * under the base URL the caller used when it is the service's (an alias such as localhost
 * included), with the one configured issuer.
 */
function protectedResource(event: APIGatewayProxyEvent, resourcePath: string) {
  const baseUrl = resourceBaseUrl(event);
  return {
    resource: `${baseUrl}${resourcePath}`,
    authorization_servers: [issuerOf(canonicalBaseUrl(event))],
    scopes_supported: [OAUTH_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: resourcePath === '/mcp/v1' ? `${SERVICE_NAME} (MCP)` : SERVICE_NAME,
    // The rendered API reference (a public page); /v1 itself is no page.
    resource_documentation: `${baseUrl}/docs`,
  };
}

export const protectedResourceMetadata = routeHandler({ auth: 'none' }, async ({ event }) =>
  json(200, protectedResource(event, ''), CORS),
);

export const protectedResourceMetadataForPath = routeHandler(
  { auth: 'none', path: z.object({ resource_path: z.string() }) },
  async ({ event, path }) => {
    const resourcePath = `/${path.resource_path.replace(/\/+$/, '')}`;
    if (resourcePath !== '/mcp/v1' && resourcePath !== '/v1') {
      return json(404, {
        error: `No protected resource at ${resourcePath}; this service has /mcp/v1 and /v1.`,
      });
    }
    return json(200, protectedResource(event, resourcePath), CORS);
  },
);

/** RFC 8414 authorization server metadata, at the path-aware well-known URL of the issuer. */
export const authorizationServerMetadata = routeHandler({ auth: 'none' }, async ({ event }) => {
  const issuer = issuerOf(canonicalBaseUrl(event));
  return json(
    200,
    {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      revocation_endpoint: `${issuer}/revoke`,
      revocation_endpoint_auth_methods_supported: ['none'],
      jwks_uri: `${issuer}/jwks.json`,
      scopes_supported: [OAUTH_SCOPE],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    },
    CORS,
  );
});

export const jwks = routeHandler({ auth: 'none' }, async ({ services }) =>
  json(200, await services.signingKeys.jwks(), { ...CORS, 'cache-control': 'public, max-age=300' }),
);

/** RFC 7591 dynamic client registration, for public clients only. */
export const registerClient = routeHandler({ auth: 'none' }, async ({ services, event }) => {
  const body = bodyText(event);
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > REGISTRATION_LIMITS.maxBodyBytes) {
    return json(
      400,
      {
        error: 'invalid_client_metadata',
        error_description: `The registration is ${bytes} bytes; at most ${REGISTRATION_LIMITS.maxBodyBytes} are allowed (at most ${REGISTRATION_LIMITS.maxRedirectUris} redirect URIs of at most ${REGISTRATION_LIMITS.maxRedirectUriLength} characters each).`,
      },
      { ...NO_STORE, ...CORS },
    );
  }
  let metadata: unknown;
  try {
    metadata = JSON.parse(body || 'null');
  } catch {
    return json(
      400,
      { error: 'invalid_client_metadata', error_description: 'The body must be JSON.' },
      { ...NO_STORE, ...CORS },
    );
  }
  try {
    const client = clientFromMetadata(metadata, newClientId(), new Date());
    // Only a valid registration counts against the address's budget: it is what gets stored.
    await admitRegistration(services, clientAddress(event));
    await services.oauth.putClient(client);
    return json(
      201,
      {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
        client_name: client.clientName,
        redirect_uris: client.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: OAUTH_SCOPE,
      },
      { ...NO_STORE, ...CORS },
    );
  } catch (error) {
    if (error instanceof ClientMetadataError) {
      return json(400, { error: error.code, error_description: error.message }, { ...NO_STORE, ...CORS });
    }
    if (error instanceof RegistrationThrottledError) {
      // RFC 7591 §3.2.2's error shape; a page on another origin may read the Retry-After too.
      return json(
        429,
        { error: 'too_many_requests', error_description: error.message },
        {
          ...NO_STORE,
          ...CORS,
          'retry-after': String(error.retryAfterSeconds),
          'access-control-expose-headers': 'retry-after',
        },
      );
    }
    throw error;
  }
});

/** The token endpoint: errors exactly as RFC 6749 §5.2, `Cache-Control: no-store` on every answer. */
export const token = routeHandler({ auth: 'none' }, async ({ services, event }) => {
  try {
    const form = formBody(event, 'grant_type=refresh_token&client_id=…&refresh_token=…');
    return json(200, await tokenGrant(services, form, canonicalBaseUrl(event)), { ...NO_STORE, ...CORS });
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    throw error;
  }
});

/**
 * RFC 7009 token revocation (a client's "disconnect"): 200 with an empty body whether or not the
 * token was known (§2.2); errors as at the token endpoint.
 */
export const revoke = routeHandler({ auth: 'none' }, async ({ services, event }) => {
  try {
    await revokeToken(services, formBody(event, 'client_id=…&token=…'), canonicalBaseUrl(event));
    return new HttpResponse(200, '', { ...NO_STORE, ...CORS });
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    throw error;
  }
});

/** An RFC 6749 §5.2 error answer (token and revocation endpoints). */
function oauthErrorResponse(error: OAuthError): HttpResponse {
  return json(
    error.status,
    { error: error.code, error_description: error.message },
    {
      ...NO_STORE,
      ...CORS,
      ...(error.status === 401 ? { 'www-authenticate': 'Basic realm="oauth"' } : {}),
    },
  );
}

const SESSION_COOKIE = 'mcp_oauth_session';
const CSRF_COOKIE = 'mcp_oauth_csrf';

/** GET: the login page, the consent page, or straight back to the client when consent is remembered. */
export const authorizePage = routeHandler({ auth: 'none' }, async ({ services, event }) => {
  const params = authorizationParams(event.queryStringParameters ?? {});
  const baseUrl = canonicalBaseUrl(event);
  const check = await checkAuthorizationRequest(services, params, baseUrl);
  if (check.outcome !== 'valid') return refusal(check, baseUrl);
  const cookies = parseCookies(event);
  const csrf = cookies[CSRF_COOKIE] ?? randomBytes(24).toString('base64url');
  const setCsrf: Record<string, string> = cookies[CSRF_COOKIE]
    ? {}
    : { 'set-cookie': cookie(CSRF_COOKIE, csrf, resourceBaseUrl(event)) };
  const accountId = await sessionAccount(services, cookies[SESSION_COOKIE]);
  if (!accountId) {
    return new HttpResponse(200, loginPage({ client: clientLabel(check.client), params, csrfToken: csrf }), {
      ...PAGE_HEADERS,
      ...setCsrf,
    });
  }
  const consent = await services.oauth.getConsent(accountId, check.client.clientId);
  if (consent?.scope === check.request.scope) return codeRedirect(services, check, accountId, baseUrl);
  return consentResponse(services, check, accountId, params, csrf, setCsrf);
});

/** POST: the login form (sign in, then back to GET) and the consent form (allow or deny). */
export const authorizeSubmit = routeHandler({ auth: 'none' }, async ({ services, event }) => {
  const form = new URLSearchParams(bodyText(event));
  const params = authorizationParams(Object.fromEntries(form));
  const baseUrl = canonicalBaseUrl(event);
  const check = await checkAuthorizationRequest(services, params, baseUrl);
  if (check.outcome !== 'valid') return refusal(check, baseUrl);
  const cookies = parseCookies(event);
  if (!sameToken(cookies[CSRF_COOKIE], form.get('csrf_token'))) {
    return new HttpResponse(
      403,
      errorPage(
        'The form expired or did not come from this site (CSRF check failed). Start again from the application.',
      ),
      PAGE_HEADERS,
    );
  }
  const csrf = cookies[CSRF_COOKIE]!;
  const action = form.get('action');
  if (action === 'login') {
    const email = form.get('email') ?? '';
    let accountId: string | undefined;
    try {
      accountId = await signIn(services, email, form.get('password') ?? '', clientAddress(event));
    } catch (error) {
      if (!(error instanceof SignInThrottledError)) throw error;
      const page = loginPage({
        client: clientLabel(check.client),
        params,
        csrfToken: csrf,
        email,
        error: error.message,
      });
      return new HttpResponse(429, page, {
        ...PAGE_HEADERS,
        'retry-after': String(error.retryAfterSeconds),
      });
    }
    if (!accountId) {
      const page = loginPage({
        client: clientLabel(check.client),
        params,
        csrfToken: csrf,
        email,
        error: 'Wrong email or password.',
      });
      return new HttpResponse(401, page, PAGE_HEADERS);
    }
    const session = await startSession(services, accountId);
    // Back where the browser is (its cookies are that host's: an alias stays an alias).
    const back = `${resourceBaseUrl(event)}${ISSUER_PATH}/authorize?${new URLSearchParams(
      Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
    )}`;
    return new HttpResponse(303, '', {
      location: back,
      'cache-control': 'no-store',
      'set-cookie': cookie(SESSION_COOKIE, session.sessionId, resourceBaseUrl(event), session.maxAgeSeconds),
    });
  }
  const accountId = await sessionAccount(services, cookies[SESSION_COOKIE]);
  if (!accountId) {
    return new HttpResponse(
      200,
      loginPage({ client: clientLabel(check.client), params, csrfToken: csrf, error: 'Sign in first.' }),
      PAGE_HEADERS,
    );
  }
  if (action === 'deny') {
    return redirectTo(
      redirectWith(check.request.redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied access.',
        state: check.request.state,
        iss: issuerOf(baseUrl),
      }),
    );
  }
  if (action !== 'approve') {
    return new HttpResponse(400, errorPage('Unknown form action.'), PAGE_HEADERS);
  }
  await services.oauth.putConsent({
    accountId,
    clientId: check.client.clientId,
    scope: check.request.scope,
    grantedAt: new Date().toISOString(),
  });
  return codeRedirect(services, check, accountId, baseUrl);
});

async function consentResponse(
  services: Parameters<typeof checkAuthorizationRequest>[0],
  check: Extract<AuthorizationCheck, { outcome: 'valid' }>,
  accountId: string,
  params: Record<string, string | undefined>,
  csrf: string,
  extraHeaders: Record<string, string>,
): Promise<HttpResponse> {
  const account = await services.accounts.getAccount(accountId);
  return new HttpResponse(
    200,
    consentPage({
      client: clientLabel(check.client),
      redirect: redirectTarget(check.request.redirectUri),
      accountHandle: account?.handle ?? accountId,
      params,
      csrfToken: csrf,
    }),
    { ...PAGE_HEADERS, ...extraHeaders },
  );
}

async function codeRedirect(
  services: Parameters<typeof issueAuthorizationCode>[0],
  check: Extract<AuthorizationCheck, { outcome: 'valid' }>,
  accountId: string,
  baseUrl: string,
): Promise<HttpResponse> {
  const code = await issueAuthorizationCode(services, check.request, accountId);
  return redirectTo(
    redirectWith(check.request.redirectUri, { code, state: check.request.state, iss: issuerOf(baseUrl) }),
  );
}

function refusal(check: Exclude<AuthorizationCheck, { outcome: 'valid' }>, baseUrl: string): HttpResponse {
  if (check.outcome === 'error_page') return new HttpResponse(400, errorPage(check.message), PAGE_HEADERS);
  return redirectTo(
    redirectWith(check.redirectUri, {
      error: check.error,
      error_description: check.description,
      state: check.state,
      iss: issuerOf(baseUrl),
    }),
  );
}

function redirectTo(location: string): HttpResponse {
  return new HttpResponse(303, '', { location, 'cache-control': 'no-store' });
}

function authorizationParams(source: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(AUTHORIZATION_PARAMETERS.map((name) => [name, source[name]]));
}

/**
 * The form of a token or revocation request. A JSON body (some hand-written clients send one) is
 * refused saying what to send instead, rather than as "Missing grant_type".
 */
function formBody(event: APIGatewayProxyEvent, example: string): URLSearchParams {
  const body = bodyText(event);
  const type = (event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? '').toLowerCase();
  const form = type.startsWith('application/x-www-form-urlencoded');
  if (/json/.test(type) || (!form && /^\s*[{[]/.test(body))) {
    throw new OAuthError(
      'invalid_request',
      `The body must be application/x-www-form-urlencoded (RFC 6749 §4.1.3, RFC 7009 §2.1), not JSON: ${example}`,
    );
  }
  return new URLSearchParams(body);
}

function bodyText(event: APIGatewayProxyEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function parseCookies(event: APIGatewayProxyEvent): Record<string, string> {
  const header = event.headers?.cookie ?? event.headers?.Cookie ?? '';
  const cookies: Record<string, string> = {};
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0) cookies[part.slice(0, index).trim()] = decodeURIComponent(part.slice(index + 1).trim());
  }
  return cookies;
}

/** `HttpOnly; SameSite=Lax`, scoped to the OAuth paths, and `Secure` except on a loopback host. */
function cookie(name: string, value: string, baseUrl: string, maxAgeSeconds = 3600): string {
  const secure = isLoopbackHttp(new URL(baseUrl)) ? '' : '; Secure';
  return `${name}=${encodeURIComponent(value)}; Path=${new URL(baseUrl).pathname.replace(/\/$/, '')}${ISSUER_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

function sameToken(a: string | undefined, b: string | null): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The TCP peer: API Gateway's `sourceIp` in AWS (docs/aws.md), the socket's address locally. */
function clientAddress(event: APIGatewayProxyEvent): string {
  return event.requestContext?.identity?.sourceIp ?? 'unknown';
}
