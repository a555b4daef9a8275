import { createHash, randomBytes } from 'node:crypto';
/**
 * A person at the browser, without a browser: follows the authorization endpoint's pages with
 * plain HTTP, keeping cookies, submitting the login form and the consent form as a browser would
 * (fields read from the served HTML). Returns the redirect to the client's callback.
 */
export interface SignIn {
  email: string;
  password: string;
}

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const index = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Hidden and named inputs of the page's first form, as a browser would submit them. */
export function formFields(html: string): URLSearchParams {
  const fields = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(unescapeHtml(match[1]!), unescapeHtml(match[2]!));
  }
  return fields;
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * Walks login (when there is no session) and consent (when not yet given), then returns the URL
 * the server redirected to: the client's redirect URI with `code` (or `error`).
 */
export async function authorizeInBrowser(
  authorizationUrl: string,
  signIn: SignIn,
  jar = new CookieJar(),
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  let response = await fetch(authorizationUrl, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.store(response);
  const formAction = new URL('/oauth/mcp/authorize', authorizationUrl).toString();
  for (let step = 0; step < 4; step++) {
    if (response.status === 303) {
      const location = new URL(response.headers.get('location')!, authorizationUrl);
      if (location.pathname !== '/oauth/mcp/authorize') return location;
      response = await fetch(location, { headers: { cookie: jar.header() }, redirect: 'manual' });
      jar.store(response);
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`authorization page answered ${response.status}: ${html}`);
    const fields = formFields(html);
    if (fields.get('action') === 'login') {
      fields.set('email', signIn.email);
      fields.set('password', signIn.password);
    } else {
      fields.set('action', decision);
    }
    response = await fetch(formAction, {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
      redirect: 'manual',
    });
    jar.store(response);
  }
  throw new Error('the authorization did not end in a redirect to the client');
}

export interface IssuedTokens {
  clientId: string;
  redirectUri: string;
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/** S256 PKCE pair. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client (RFC 7591) and returns its id. */
export async function registerClient(
  baseUrl: string,
  redirectUri = 'http://127.0.0.1:45678/callback',
  name = 'Test client',
): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/mcp/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      client_name: name,
      token_endpoint_auth_method: 'none',
    }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The authorization URL of a standard request (every parameter overridable, `undefined` drops it). */
export function authorizationUrl(baseUrl: string, params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    state: 'state-1',
    code_challenge_method: 'S256',
    resource: baseUrl,
    scope: 'mcp:service:full',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) search.set(name, value);
  return `${baseUrl}/oauth/mcp/authorize?${search}`;
}

/** Token endpoint call with a form body; returns status, headers and JSON. */
export async function tokenRequest(baseUrl: string, form: Record<string, string | undefined>) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (value !== undefined) body.set(name, value);
  const response = await fetch(`${baseUrl}/oauth/mcp/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

/** Registration, login, consent and code exchange: a client's tokens for the signed-in account. */
export async function obtainTokens(
  baseUrl: string,
  signIn: SignIn,
  options: { clientId?: string; redirectUri?: string; jar?: CookieJar } = {},
): Promise<IssuedTokens & { code: string; verifier: string }> {
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:45678/callback';
  const clientId = options.clientId ?? (await registerClient(baseUrl, redirectUri));
  const { verifier, challenge } = pkcePair();
  const callback = await authorizeInBrowser(
    authorizationUrl(baseUrl, { client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge }),
    signIn,
    options.jar,
  );
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback}`);
  const { status, json } = await tokenRequest(baseUrl, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    resource: baseUrl,
  });
  if (status !== 200) throw new Error(`token request failed: ${JSON.stringify(json)}`);
  return { ...(json as unknown as IssuedTokens), clientId, redirectUri, code, verifier };
}
