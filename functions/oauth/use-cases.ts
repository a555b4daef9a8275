import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../core/errors';
import { newId } from '../core/ids';
import { OAUTH_SCOPE, type OAuthClient, type TokenFamily } from '../core/oauth';
import { configuredBaseUrls } from '../http/request-url';
import type { Services } from '../services';
import { accessTokenGrant, issueAccessToken } from './access-tokens';
import { ClientMetadataError, redirectUriMatches, resolveClient } from './clients';
import {
  issuerOf,
  LOGIN_RATE_LIMIT,
  type LoginRateLimit,
  OAUTH_LIFETIMES,
  REGISTRATION_WINDOW_SECONDS,
} from './config';
import { decoyPasswordHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords';

type OAuthServices = Pick<Services, 'oauth' | 'accounts' | 'signingKeys'>;

/** An RFC 6749 error (§4.1.2.1 at the authorization endpoint, §5.2 at the token endpoint). */
export class OAuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The MCP endpoint, relative to the base URL: a second audience of every access token. */
export const MCP_RESOURCE_PATH = '/mcp/v1';

/**
 * The token audience for a `resource` parameter (RFC 8707): the service's base URL. The base URL
 * itself and the resources it serves (`/mcp/v1`, `/v1`, as the protected resource metadata names
 * them, with any query) are accepted, so one token works on both; anything else is not ours.
 */
export function audienceForResource(
  resource: string,
  baseUrl: string,
  aliases: readonly string[] = configuredBaseUrls(),
): string | undefined {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  // A query is allowed (RFC 8707 §2: it may be "a useful and necessary part"): an MCP client may
  // keep the tool selection, /mcp/v1?features=…, in the URL it names as the resource.
  if (url.hash) return undefined;
  const path = url.pathname.replace(/\/$/, '');
  // The resource may be named through an alias of the base URL (locally localhost for
  // 127.0.0.1); the audience is always the base URL itself.
  const ours = [baseUrl, ...aliases].some((candidate) => {
    const base = new URL(candidate);
    const basePath = base.pathname.replace(/\/$/, '');
    return (
      url.origin === base.origin &&
      ['', '/mcp/v1', '/v1'].map((suffix) => `${basePath}${suffix}`).includes(path)
    );
  });
  return ours ? baseUrl : undefined;
}

/**
 * The scope granted for a request's `scope`: always ours (absent means ours). Scopes this server
 * does not know (`openid`, `profile`, `email`, `offline_access`, another server's) are ignored
 * (RFC 6749 §3.3 lets the server grant less than asked, and the token response names the scope
 * granted); only another scope of this service (`mcp:…`, e.g. a narrower one we do not offer) is
 * refused, since granting ours instead would give more than was asked.
 */
export function checkScope(scope: string | undefined): string {
  const requested = (scope ?? '').split(' ').filter(Boolean);
  const unknownOfOurs = requested.filter((value) => value.startsWith('mcp:') && value !== OAUTH_SCOPE);
  if (unknownOfOurs.length > 0) {
    throw new OAuthError(
      'invalid_scope',
      `Unknown scope ${unknownOfOurs.map((value) => `"${value}"`).join(', ')}: the only scope of this service is "${OAUTH_SCOPE}".`,
    );
  }
  return OAUTH_SCOPE;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Optional: PKCE, which every request must use, already protects against CSRF (OAuth 2.1 §7.5.1). */
  state?: string;
  codeChallenge: string;
  resource: string;
  scope: string;
}

/** The authorization parameters a page carries through its forms. */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'scope',
] as const;

export type AuthorizationCheck =
  /** Shown as a page, never redirected: the client or its redirect URI cannot be trusted. */
  | { outcome: 'error_page'; message: string }
  /** Sent back to the (verified) redirect URI. */
  | { outcome: 'redirect_error'; redirectUri: string; error: string; description: string; state?: string }
  | { outcome: 'valid'; request: AuthorizationRequest; client: OAuthClient };

/** Checks an authorization request: client and redirect URI first, then the rest (RFC 6749 §4.1.2.1). */
export async function checkAuthorizationRequest(
  services: OAuthServices,
  params: Record<string, string | undefined>,
  baseUrl: string,
): Promise<AuthorizationCheck> {
  const clientId = params.client_id;
  if (!clientId) return { outcome: 'error_page', message: 'The request has no client_id.' };
  let client: OAuthClient | undefined;
  try {
    client = await resolveClient(services, clientId);
  } catch (error) {
    if (error instanceof ClientMetadataError) return { outcome: 'error_page', message: error.message };
    throw error;
  }
  if (!client) {
    return {
      outcome: 'error_page',
      message: `Unknown client "${clientId}". The application must register again (its registration may have been deleted).`,
    };
  }
  const redirectUri = params.redirect_uri;
  if (!redirectUri) return { outcome: 'error_page', message: 'The request has no redirect_uri.' };
  if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    return {
      outcome: 'error_page',
      message: `The redirect_uri ${redirectUri} is not registered for ${client.clientName}.`,
    };
  }
  const state = params.state;
  const fail = (error: string, description: string): AuthorizationCheck => ({
    outcome: 'redirect_error',
    redirectUri,
    error,
    description,
    ...(state ? { state } : {}),
  });
  if (params.response_type !== 'code') {
    return fail('unsupported_response_type', 'response_type must be "code".');
  }
  // `state` may be absent (RFC 6749 §4.1.1 only recommends it): PKCE S256, required below, keeps
  // the code bound to the client that asked (OAuth 2.1 §7.5.1). None is sent back then.
  for (const name of ['code_challenge', 'code_challenge_method'] as const) {
    if (!params[name]) return fail('invalid_request', `Missing required parameter ${name}.`);
  }
  if (params.code_challenge_method !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256 (plain is not supported).');
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge!)) {
    return fail('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters).');
  }
  // RFC 8707 makes `resource` optional (clients of the 2025-03-26 MCP spec send none): the
  // service is the one audience there is.
  const resource = audienceForResource(params.resource || baseUrl, baseUrl);
  if (!resource) {
    return fail('invalid_target', `resource must be this service: ${baseUrl}.`);
  }
  let scope: string;
  try {
    scope = checkScope(params.scope);
  } catch (error) {
    return fail('invalid_scope', (error as Error).message);
  }
  return {
    outcome: 'valid',
    client,
    request: {
      clientId: client.clientId,
      redirectUri,
      ...(state ? { state } : {}),
      codeChallenge: params.code_challenge!,
      resource,
      scope,
    },
  };
}

/** `redirect_uri` with the response parameters added (keeping its own query). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** Issues a single-use code bound to the client, redirect URI, PKCE challenge, resource and scope. */
export async function issueAuthorizationCode(
  services: OAuthServices,
  request: AuthorizationRequest,
  accountId: string,
  now = Date.now(),
): Promise<string> {
  const code = randomToken();
  await services.oauth.putCode({
    codeHash: sha256(code),
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scope: request.scope,
    accountId,
    familyId: newId(now),
    expiresAt: now + OAUTH_LIFETIMES.authorizationCodeSeconds * 1000,
  });
  return code;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** The token endpoint (RFC 6749 §3.2): `authorization_code` and `refresh_token` grants for public clients. */
export async function tokenGrant(
  services: OAuthServices,
  form: URLSearchParams,
  baseUrl: string,
  now = Date.now(),
): Promise<TokenResponse> {
  for (const [name] of form) {
    if (form.getAll(name).length > 1)
      throw new OAuthError('invalid_request', `Parameter ${name} is repeated.`);
  }
  const grantType = form.get('grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'Missing grant_type.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type "${grantType}" is not supported; use authorization_code or refresh_token.`,
    );
  }
  const clientId = form.get('client_id');
  if (!clientId)
    throw new OAuthError('invalid_request', 'Missing client_id (public clients send it in the body).');
  const client = await knownClient(services, clientId);
  const resource = form.get('resource');
  if (resource !== null && !audienceForResource(resource, baseUrl)) {
    throw new OAuthError('invalid_target', `resource must be this service: ${baseUrl}.`);
  }
  const scope = form.get('scope');
  if (scope !== null) checkScope(scope);
  return grantType === 'authorization_code'
    ? redeemCode(services, client, form, baseUrl, now)
    : refreshGrant(services, client, form, baseUrl, now);
}

async function redeemCode(
  services: OAuthServices,
  client: OAuthClient,
  form: URLSearchParams,
  baseUrl: string,
  now: number,
): Promise<TokenResponse> {
  const code = form.get('code');
  const redirectUri = form.get('redirect_uri');
  const verifier = form.get('code_verifier');
  if (!code) throw new OAuthError('invalid_request', 'Missing code.');
  if (!redirectUri) throw new OAuthError('invalid_request', 'Missing redirect_uri.');
  if (!verifier) throw new OAuthError('invalid_request', 'Missing code_verifier (PKCE is required).');
  const stored = await services.oauth.getCode(sha256(code));
  if (!stored || stored.clientId !== client.clientId) {
    throw new OAuthError(
      'invalid_grant',
      'The authorization code is unknown or was issued to another client.',
    );
  }
  if (stored.redirectUri !== redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
  }
  if (!safeEqual(sha256(verifier), stored.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (S256).');
  }
  const resource = form.get('resource');
  if (resource !== null && audienceForResource(resource, baseUrl) !== stored.resource) {
    throw new OAuthError('invalid_target', 'resource differs from the one of the authorization request.');
  }
  if (!(await services.oauth.redeemCode(stored.codeHash, now))) {
    if (
      stored.usedAt !== undefined ||
      (await services.oauth.getCode(stored.codeHash))?.usedAt !== undefined
    ) {
      // RFC 6749 §4.1.2: a code used twice was probably stolen; what it issued is revoked.
      await services.oauth.revokeFamily(stored.familyId, now);
      throw new OAuthError(
        'invalid_grant',
        'The authorization code was already used; the tokens it issued are revoked.',
      );
    }
    throw new OAuthError(
      'invalid_grant',
      'The authorization code has expired; start the authorization again.',
    );
  }
  const account = await services.accounts.getAccount(stored.accountId);
  if (!account) throw new OAuthError('invalid_grant', 'The account of this authorization no longer exists.');
  const refreshToken = newRefreshToken(stored.familyId);
  const family: TokenFamily = {
    familyId: stored.familyId,
    accountId: account.accountId,
    clientId: client.clientId,
    scope: stored.scope,
    resource: stored.resource,
    currentHash: sha256(refreshToken),
    rotatedAt: now,
    createdAt: now,
    expiresAt: now + OAUTH_LIFETIMES.refreshTokenDays * 24 * 3600 * 1000,
    account,
  };
  await services.oauth.putFamily(family);
  return tokenResponse(services, family, refreshToken, baseUrl, now);
}

async function refreshGrant(
  services: OAuthServices,
  client: OAuthClient,
  form: URLSearchParams,
  baseUrl: string,
  now: number,
): Promise<TokenResponse> {
  const presented = form.get('refresh_token');
  if (!presented) throw new OAuthError('invalid_request', 'Missing refresh_token.');
  const familyId = REFRESH_TOKEN_PATTERN.exec(presented)?.[1];
  const family = familyId ? await services.oauth.getFamily(familyId) : undefined;
  if (!family) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
  if (family.clientId !== client.clientId) {
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  }
  if (family.revokedAt !== undefined)
    throw new OAuthError('invalid_grant', 'The refresh token has been revoked; sign in again.');
  if (family.expiresAt <= now)
    throw new OAuthError('invalid_grant', 'The refresh token has expired; sign in again.');
  const presentedHash = sha256(presented);
  const next = newRefreshToken(family.familyId);
  if (await services.oauth.rotateFamily(family.familyId, presentedHash, sha256(next), now)) {
    return tokenResponse(services, family, next, baseUrl, now);
  }
  // Not a current token. Either a refresh that raced the rotation (the token just replaced,
  // within the grace window), or a token of this family rotated out earlier: a replay, whoever
  // presents it (RFC 9700 §4.14.2), so the whole family is revoked, the newest tokens included.
  const latest = (await services.oauth.getFamily(family.familyId)) ?? family;
  if (latest.revokedAt !== undefined)
    throw new OAuthError('invalid_grant', 'The refresh token has been revoked; sign in again.');
  if (latest.expiresAt <= now)
    throw new OAuthError('invalid_grant', 'The refresh token has expired; sign in again.');
  if (isCurrentToken(latest, presentedHash)) {
    // Still current, so no replay: the write failed for another reason. Not worth a revocation.
    throw new OAuthError('invalid_grant', 'The refresh token could not be rotated; try again.');
  }
  if (latest.previousHash && safeEqual(latest.previousHash, presentedHash)) {
    const graceStart = now - OAUTH_LIFETIMES.refreshGraceSeconds * 1000;
    if (await services.oauth.addGraceToken(family.familyId, presentedHash, sha256(next), graceStart, now)) {
      return tokenResponse(services, latest, next, baseUrl, now);
    }
  }
  await services.oauth.revokeFamily(family.familyId, now);
  throw new OAuthError(
    'invalid_grant',
    'The refresh token was already used; every token of this authorization is revoked. Sign in again.',
  );
}

function isCurrentToken(family: TokenFamily, hash: string): boolean {
  return [family.currentHash, family.graceHash, ...(family.graceHashes ?? [])].some(
    (candidate) => candidate !== undefined && safeEqual(candidate, hash),
  );
}

/**
 * RFC 7009 revocation for public clients (`client_id` + `token`): a refresh token or an access
 * token of this client ends its whole grant (the refresh-token family, so every refresh and
 * access token of it) and, with the client's last live grant on the account, the consent, so
 * connecting again asks again. A token that is
 * not ours, unknown, expired or already revoked is answered like a revoked one (RFC 7009 §2.2):
 * nothing to do. `token_type_hint` is only a hint: both kinds are looked for.
 */
export async function revokeToken(
  services: OAuthServices,
  form: URLSearchParams,
  baseUrl: string,
  now = Date.now(),
): Promise<void> {
  for (const [name] of form) {
    if (form.getAll(name).length > 1)
      throw new OAuthError('invalid_request', `Parameter ${name} is repeated.`);
  }
  const clientId = form.get('client_id');
  if (!clientId)
    throw new OAuthError('invalid_request', 'Missing client_id (public clients send it in the body).');
  const token = form.get('token');
  if (!token)
    throw new OAuthError('invalid_request', 'Missing token (the refresh or access token to revoke).');
  const client = await knownClient(services, clientId);
  if (/^osk_/.test(token)) {
    throw new OAuthError(
      'unsupported_token_type',
      'That is an API key, not an OAuth token: API keys are revoked with the admin CLI (revoke-key).',
    );
  }
  const familyId =
    REFRESH_TOKEN_PATTERN.exec(token)?.[1] ??
    (await accessTokenGrant(services.signingKeys, token, issuerOf(baseUrl)))?.sid;
  const family = familyId ? await services.oauth.getFamily(familyId) : undefined;
  if (!family) return;
  if (family.clientId !== client.clientId) {
    throw new OAuthError('invalid_grant', 'The token was issued to another client; it was not revoked.');
  }
  await services.oauth.revokeFamily(family.familyId, now);
  // The consent goes with the client's last live grant on the account (another device of the
  // same client may still hold one): connecting again then asks again.
  const others = await services.oauth.listFamilies(family.accountId, family.clientId);
  if (
    !others.some(
      (other) => other.familyId !== family.familyId && other.revokedAt === undefined && other.expiresAt > now,
    )
  ) {
    await services.oauth.deleteConsent(family.accountId, family.clientId);
  }
}

/** `ort_<familyId>_<secret>`: the family is a ULID, the secret 32 random bytes in base64url. */
const REFRESH_TOKEN_PATTERN = /^ort_([0-9A-HJKMNP-TV-Z]{26})_[A-Za-z0-9_-]{43}$/;

function newRefreshToken(familyId: string): string {
  return `ort_${familyId}_${randomToken()}`;
}

async function tokenResponse(
  services: OAuthServices,
  family: TokenFamily,
  refreshToken: string,
  baseUrl: string,
  now: number,
): Promise<TokenResponse> {
  const { token, expiresIn } = await issueAccessToken(
    services.signingKeys,
    {
      issuer: issuerOf(baseUrl),
      // The base URL (what every route checks) and the MCP endpoint, the resource MCP clients name.
      audience: [baseUrl, `${baseUrl}${MCP_RESOURCE_PATH}`],
      sub: family.accountId,
      client_id: family.clientId,
      scope: family.scope,
      sid: family.familyId,
    },
    now,
  );
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: expiresIn,
    refresh_token: refreshToken,
    scope: family.scope,
  };
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Sets (or replaces) the email and password that sign in to an account. */
export async function setLogin(
  services: Pick<Services, 'oauth'>,
  accountId: string,
  email: string,
  password: string,
  now = new Date(),
): Promise<string> {
  const normalized = normalizeEmail(email);
  if (!/^[^\s@]+@[^\s@]+$/.test(normalized)) throw new BadRequestError(`"${email}" is not an email address.`);
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new BadRequestError(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  await services.oauth.putLogin({
    email: normalized,
    accountId,
    passwordHash: await hashPassword(password),
    updatedAt: now.toISOString(),
  });
  return normalized;
}

/** Sign-in refused until the failure window ends, in `retryAfterSeconds` (the 429's Retry-After). */
export class SignInThrottledError extends TooManyRequestsError {
  constructor(readonly retryAfterSeconds: number) {
    const minutes = Math.ceil(retryAfterSeconds / 60);
    super(`Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
  }
}

/**
 * Checks an email and password, counting failures per email and client address, per address and
 * per email (LOGIN_RATE_LIMIT). A pair or an address over its budget in the window gets
 * SignInThrottledError before any password check; an email over its (much larger) budget only
 * waits `slowdownSeconds`, so nobody can lock its owner out from elsewhere.
 * The account id, or undefined for a wrong email or password (the same answer for both).
 */
export async function signIn(
  services: Pick<Services, 'oauth'>,
  email: string,
  password: string,
  clientAddress: string,
  now = Date.now(),
  limits: LoginRateLimit = LOGIN_RATE_LIMIT,
): Promise<string | undefined> {
  const normalized = normalizeEmail(email);
  const windowMs = limits.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const keys = [`pair:${normalized}\n${clientAddress}`, `ip:${clientAddress}`, `email:${normalized}`];
  const [byPair, byAddress, byEmail] = await Promise.all(
    keys.map((key) => services.oauth.loginFailures(key, windowStart)),
  );
  if (byPair! >= limits.perEmailAndAddress || byAddress! >= limits.perAddress) {
    throw new SignInThrottledError(Math.ceil((windowStart + windowMs - now) / 1000));
  }
  if (byEmail! >= limits.perEmail) {
    await new Promise((resolve) => setTimeout(resolve, limits.slowdownSeconds * 1000));
  }
  const login = normalized ? await services.oauth.getLogin(normalized) : undefined;
  const valid = await verifyPassword(password, login?.passwordHash ?? (await decoyPasswordHash()));
  if (login && valid) return login.accountId;
  await Promise.all(
    keys.map((key) => services.oauth.countLoginFailure(key, windowStart, windowStart + windowMs)),
  );
  return undefined;
}

/** A registration over the client address's budget: 429 with `Retry-After` (`retryAfterSeconds`). */
export class RegistrationThrottledError extends TooManyRequestsError {
  constructor(
    readonly retryAfterSeconds: number,
    limit: number,
  ) {
    const minutes = Math.ceil(retryAfterSeconds / 60);
    super(
      `Too many client registrations from this address: at most ${limit} per hour. Reuse the client_id you registered, or try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    );
  }
}

/**
 * Counts one dynamic client registration of a client address against its hourly budget
 * (`config.oauthRegistrationsPerHour`, in the request counter the rate limits use);
 * RegistrationThrottledError when the budget is used up (then nothing is counted).
 */
export async function admitRegistration(
  services: Pick<Services, 'requestCounter' | 'config'>,
  clientAddress: string,
  now = Date.now(),
): Promise<void> {
  const limit = services.config.oauthRegistrationsPerHour;
  const windowMs = REGISTRATION_WINDOW_SECONDS * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const counted = await services.requestCounter.count(
    `addr:${clientAddress}`,
    'registration',
    windowStart,
    limit,
    windowMs,
  );
  if (counted === undefined) {
    throw new RegistrationThrottledError(
      Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
      limit,
    );
  }
}

/** Starts a browser session for an account; the cookie value (shown once) and when it ends. */
export async function startSession(
  services: Pick<Services, 'oauth'>,
  accountId: string,
  now = Date.now(),
): Promise<{ sessionId: string; maxAgeSeconds: number }> {
  const sessionId = randomToken();
  const maxAgeSeconds = OAUTH_LIFETIMES.browserSessionHours * 3600;
  await services.oauth.putSession({
    sessionHash: sha256(sessionId),
    accountId,
    expiresAt: now + maxAgeSeconds * 1000,
  });
  return { sessionId, maxAgeSeconds };
}

export async function sessionAccount(
  services: Pick<Services, 'oauth'>,
  sessionId: string | undefined,
  now = Date.now(),
): Promise<string | undefined> {
  if (!sessionId) return undefined;
  return (await services.oauth.getSession(sha256(sessionId), now))?.accountId;
}

/**
 * Ends a client's access to an account: forgets the consent and revokes every token family the
 * client holds, so its refresh tokens stop working at once and its access tokens at the next
 * request (the authorizer checks the family). NotFoundError for a client that is neither
 * registered nor has anything on the account (a mistyped id).
 */
export async function revokeClientAccess(
  services: Pick<Services, 'oauth'>,
  accountId: string,
  clientId: string,
  now = Date.now(),
): Promise<number> {
  const families = await services.oauth.listFamilies(accountId, clientId);
  if (
    families.length === 0 &&
    !(await services.oauth.getConsent(accountId, clientId)) &&
    !(await services.oauth.getClient(clientId))
  ) {
    throw new NotFoundError(
      `Unknown client "${clientId}": it is not registered and has no grant on this account (list-clients shows the account's clients).`,
    );
  }
  await services.oauth.deleteConsent(accountId, clientId);
  for (const family of families) await services.oauth.revokeFamily(family.familyId, now);
  return families.filter((family) => family.revokedAt === undefined).length;
}

/**
 * The client a token or revocation request names, or `invalid_client` (401): unknown, or a
 * metadata document that cannot be read (its reason matters only on the sign-in pages).
 */
async function knownClient(services: OAuthServices, clientId: string): Promise<OAuthClient> {
  const client = await resolveClient(services, clientId).catch((error: unknown) => {
    if (error instanceof ClientMetadataError) return undefined;
    throw error;
  });
  if (!client) {
    throw new OAuthError('invalid_client', `Unknown client "${clientId}"; register again.`, 401);
  }
  return client;
}
