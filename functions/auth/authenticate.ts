import { authenticateApiKey } from '../accounts/use-cases';
import type { Account } from '../core/accounts';
import { parseApiKey } from '../core/api-keys';
import { BadRequestError, ForbiddenError, ServiceError, UnauthorizedError } from '../core/errors';
import { InsufficientScopeError, InvalidAccessTokenError, verifyAccessToken } from '../oauth/access-tokens';
import { issuerOf } from '../oauth/config';
import type { Services } from '../services';
import { API_KEY_HEADER, API_KEY_QUERY_PARAMETER, type PresentedCredential } from './credentials';

/** Who is calling, and with what. */
export interface Principal {
  account: Account;
  via: 'api_key' | 'oauth';
  scope: string;
  /** The OAuth client, for bearer tokens. */
  clientId?: string;
}

/** A 401: `bearerError` is set when a bearer token was sent and refused (`error="invalid_token"`). */
export class AuthenticationError extends UnauthorizedError {
  constructor(
    message: string,
    readonly bearerError?: 'invalid_token',
  ) {
    super(message);
  }
}

/** A 403 for a valid token whose scope does not cover the route. */
export class InsufficientScopeAccessError extends ForbiddenError {}

const HOW_TO_AUTHENTICATE = `send an API key in the ${API_KEY_HEADER} header or as ?${API_KEY_QUERY_PARAMETER}=, or an OAuth access token as Authorization: Bearer <token>`;

/**
 * The authentication of a request's credentials (`presentedCredentials`): none is a 401; one is
 * `authenticateCredential`'s verdict; an API key and an Authorization credential together — a
 * client configured with a key header that also signed in over OAuth, after the key was refused —
 * resolve to whichever verifies. Both verifying for one account is that account (as the bearer
 * token: the user signed in on purpose); for two accounts, a 400 saying which client setting to
 * remove; neither, a 401 naming both problems.
 */
export async function authenticateCredentials(
  services: Pick<Services, 'accounts' | 'oauth' | 'signingKeys'>,
  credentials: readonly PresentedCredential[],
  baseUrl: string,
): Promise<Principal> {
  const [key, authorization] = credentials;
  if (!key || !authorization) return authenticateCredential(services, key, baseUrl);
  const [byKey, byAuthorization] = await Promise.allSettled([
    authenticateCredential(services, key, baseUrl),
    authenticateCredential(services, authorization, baseUrl),
  ]);
  // A failure that is not a refusal (a store outage) is answered as such, never masked by the other.
  for (const outcome of [byKey, byAuthorization]) {
    if (outcome.status === 'rejected' && !(outcome.reason instanceof ServiceError)) throw outcome.reason;
  }
  const keyLabel =
    key.kind === 'apiKey' && key.source === 'query'
      ? `the API key in the URL (?${API_KEY_QUERY_PARAMETER}=)`
      : `the API key in the ${API_KEY_HEADER} header`;
  if (byKey.status === 'fulfilled' && byAuthorization.status === 'fulfilled') {
    const [viaKey, viaAuthorization] = [byKey.value, byAuthorization.value];
    if (viaKey.account.accountId === viaAuthorization.account.accountId) return viaAuthorization;
    const removeKey =
      key.kind === 'apiKey' && key.source === 'query'
        ? `api_key= from the server URL`
        : `the ${API_KEY_HEADER} header`;
    const authorizationLabel =
      viaAuthorization.via === 'oauth'
        ? 'the OAuth access token (Authorization: Bearer) you signed in with'
        : 'the API key in the Authorization header';
    const removeAuthorization =
      viaAuthorization.via === 'oauth'
        ? 'sign out of this server in the client (or clear its stored OAuth tokens)'
        : 'the Authorization header';
    throw new BadRequestError(
      `Ambiguous credentials: ${keyLabel} is for account "${viaKey.account.handle}", but ${authorizationLabel} is for account "${viaAuthorization.account.handle}". ` +
        `Remove one from the client's configuration: ${removeKey} to use "${viaAuthorization.account.handle}", or ${removeAuthorization} to use "${viaKey.account.handle}".`,
    );
  }
  if (byAuthorization.status === 'fulfilled') return byAuthorization.value;
  if (byKey.status === 'fulfilled') return byKey.value;
  const keyProblem = (byKey.reason as ServiceError).message;
  const authorizationRefusal = byAuthorization.reason as ServiceError;
  const message = `Both credentials were refused. ${capitalized(keyLabel)}: ${keyProblem} The Authorization header: ${authorizationRefusal.message}`;
  if (authorizationRefusal instanceof InsufficientScopeAccessError) {
    throw new InsufficientScopeAccessError(message);
  }
  // The challenge says invalid_token when a bearer token was refused (not for `Basic …`).
  throw new AuthenticationError(
    message,
    authorizationRefusal instanceof AuthenticationError ? authorizationRefusal.bearerError : 'invalid_token',
  );
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The one authentication of every non-public route, on both hosts: an API key (from the header,
 * the query string, or as a bearer value) or an OAuth access token whose signature, issuer,
 * audience, expiry and scope verify and whose grant has not been revoked.
 */
export async function authenticateCredential(
  services: Pick<Services, 'accounts' | 'oauth' | 'signingKeys'>,
  credential: PresentedCredential | undefined,
  baseUrl: string,
): Promise<Principal> {
  if (!credential) throw new AuthenticationError(`Missing credentials: ${HOW_TO_AUTHENTICATE}.`);
  if (credential.kind === 'otherScheme') {
    // No bearer token was sent, so the challenge carries no invalid_token (RFC 6750 §3.1).
    throw new AuthenticationError(
      credential.scheme.toLowerCase() === 'basic'
        ? `Basic auth is not supported; send the API key in the ${API_KEY_HEADER} header or as Authorization: Bearer <key>.`
        : `The Authorization scheme "${credential.scheme}" is not supported; send the API key in the ${API_KEY_HEADER} header or as Authorization: Bearer <key>, or an OAuth access token as Authorization: Bearer <token>.`,
    );
  }
  if (credential.kind === 'apiKey' || parseApiKey(credential.value)) {
    try {
      const account = await authenticateApiKey(services.accounts, credential.value);
      return { account, via: 'api_key', scope: 'api_key' };
    } catch (error) {
      if (error instanceof UnauthorizedError && credential.kind === 'bearer') {
        throw new AuthenticationError(error.message, 'invalid_token');
      }
      throw error;
    }
  }
  try {
    const claims = await verifyAccessToken(services.signingKeys, credential.value, {
      issuer: issuerOf(baseUrl),
      audience: baseUrl,
    });
    const family = await services.oauth.getFamily(claims.sid);
    if (
      !family ||
      family.revokedAt ||
      family.accountId !== claims.sub ||
      family.clientId !== claims.client_id
    ) {
      throw new InvalidAccessTokenError('the grant behind this token has been revoked');
    }
    return { account: family.account, via: 'oauth', scope: claims.scope, clientId: claims.client_id };
  } catch (error) {
    if (error instanceof InsufficientScopeError) {
      throw new InsufficientScopeAccessError(`Insufficient scope: ${error.message}.`);
    }
    if (error instanceof InvalidAccessTokenError) {
      throw new AuthenticationError(
        `Invalid access token: ${error.message}. Get a new one (refresh it, or sign in again), or ${HOW_TO_AUTHENTICATE}.`,
        'invalid_token',
      );
    }
    throw error;
  }
}
