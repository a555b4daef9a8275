/** Where the authorization server lives and how long what it issues lasts. */
export const ISSUER_PATH = '/oauth/mcp';
export const AUTHORIZATION_SERVER_METADATA_PATH = `/.well-known/oauth-authorization-server${ISSUER_PATH}`;
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export const OAUTH_LIFETIMES = {
  /** Access tokens (JWT): short, so a revoked client loses access quickly even without a check. */
  accessTokenSeconds: 15 * 60,
  authorizationCodeSeconds: 120,
  refreshTokenDays: 30,
  /** A refresh that races a rotation may still use the token just replaced for this long. */
  refreshGraceSeconds: 10,
  browserSessionHours: 12,
} as const;

/**
 * Failed sign-ins allowed per window: per email (slows guessing one account's password) and per
 * client address (slows trying many accounts; larger, since many people may share an address).
 */
export const LOGIN_RATE_LIMIT = { perEmail: 10, perAddress: 50, windowSeconds: 15 * 60 } as const;

/** `{base}/oauth/mcp`: the `iss` of every token. */
export function issuerOf(baseUrl: string): string {
  return `${baseUrl}${ISSUER_PATH}`;
}
