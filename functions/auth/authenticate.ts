import { authenticateApiKey } from '../accounts/use-cases';
import type { Account } from '../core/accounts';
import { parseApiKey } from '../core/api-keys';
import { ForbiddenError, UnauthorizedError } from '../core/errors';
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
