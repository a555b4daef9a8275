import { randomUUID } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import { OAUTH_SCOPE } from '../core/oauth';
import { OAUTH_LIFETIMES } from './config';
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys';

/**
 * Access tokens are JWTs (RFC 9068 shape): `iss` the issuer, `aud` the service's base URL (what
 * the authorizer checks, so one token works on /v1 and /mcp/v1) and the MCP endpoint's URL (the
 * `resource` MCP clients ask for, RFC 8707 §2), `sub` the account id, `scope`, `client_id`, `jti`, and `sid`
 * the refresh-token family, which the authorizer checks so that revoking a client ends its
 * access tokens too.
 */
export interface AccessTokenClaims {
  sub: string;
  client_id: string;
  scope: string;
  sid: string;
}

export async function issueAccessToken(
  keys: SigningKeys,
  input: AccessTokenClaims & { issuer: string; audience: string | string[] },
  now = Date.now(),
): Promise<{ token: string; expiresIn: number }> {
  const { kid, key } = await keys.signingKey();
  const issuedAt = Math.floor(now / 1000);
  const expiresIn = OAUTH_LIFETIMES.accessTokenSeconds;
  const token = await new SignJWT({ scope: input.scope, client_id: input.client_id, sid: input.sid })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid, typ: 'at+jwt' })
    .setIssuer(input.issuer)
    .setAudience(input.audience)
    .setSubject(input.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + expiresIn)
    .setJti(randomUUID())
    .sign(key);
  return { token, expiresIn };
}

/** Why a token was refused (said in the 401's `error_description`). */
export class InvalidAccessTokenError extends Error {}

/** A valid token without the scope a route needs (403 `insufficient_scope`). */
export class InsufficientScopeError extends Error {
  constructor(readonly granted: string) {
    super(`the token's scope "${granted}" does not include ${OAUTH_SCOPE}`);
  }
}

/** Verifies signature (ES256 only, known `kid`), issuer, audience, expiry and the scope claim. */
export async function verifyAccessToken(
  keys: SigningKeys,
  token: string,
  expected: { issuer: string; audience: string },
  now = Date.now(),
): Promise<AccessTokenClaims> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== SIGNING_ALGORITHM)
      throw new InvalidAccessTokenError(`alg must be ${SIGNING_ALGORITHM}`);
    kid = header.kid;
  } catch (error) {
    if (error instanceof InvalidAccessTokenError) throw error;
    throw new InvalidAccessTokenError('the token is not a JWT');
  }
  if (!kid) throw new InvalidAccessTokenError('the token has no kid');
  const key = await keys.verificationKey(kid);
  if (!key) throw new InvalidAccessTokenError('unknown signing key');
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALGORITHM],
      issuer: expected.issuer,
      audience: expected.audience,
      requiredClaims: ['sub', 'exp', 'iat', 'jti', 'scope', 'client_id', 'sid'],
      currentDate: new Date(now),
    });
    const scopes = String(payload.scope).split(' ');
    if (!scopes.includes(OAUTH_SCOPE)) throw new InsufficientScopeError(payload.scope as string);
    return {
      sub: String(payload.sub),
      client_id: String(payload.client_id),
      scope: String(payload.scope),
      sid: String(payload.sid),
    };
  } catch (error) {
    if (error instanceof InvalidAccessTokenError || error instanceof InsufficientScopeError) throw error;
    if (error instanceof errors.JWTExpired) throw new InvalidAccessTokenError('the token has expired');
    if (error instanceof errors.JWTClaimValidationFailed) {
      throw new InvalidAccessTokenError(`the token's ${error.claim} claim is not valid here`);
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      throw new InvalidAccessTokenError('the signature does not verify');
    }
    throw new InvalidAccessTokenError('the token is malformed');
  }
}

/**
 * The grant (`sid`) and client of an access token this issuer signed, for revocation (RFC 7009):
 * the signature and issuer must verify, but an expired token or one for another audience still
 * names its grant. Undefined for anything else (not a JWT, unknown key, bad signature).
 */
export async function accessTokenGrant(
  keys: SigningKeys,
  token: string,
  issuer: string,
): Promise<{ sid: string; client_id: string } | undefined> {
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== SIGNING_ALGORITHM || !header.kid) return undefined;
    const key = await keys.verificationKey(header.kid);
    if (!key) return undefined;
    const { payload } = await compactVerify(token, key, { algorithms: [SIGNING_ALGORITHM] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    if (claims.iss !== issuer || typeof claims.sid !== 'string' || typeof claims.client_id !== 'string') {
      return undefined;
    }
    return { sid: claims.sid, client_id: claims.client_id };
  } catch {
    return undefined;
  }
}
