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
 * Failed sign-ins per fixed window. Failures lock only the pair of email and client address that
 * made them (`perEmailAndAddress`), so guessing from one place cannot lock the owner out from
 * another; an address that fails on many emails is locked too (`perAddress`; larger, since many
 * people may share an address). Past `perEmail` failures of one email from anywhere (a guess
 * spread over many addresses), every attempt at that email waits `slowdownSeconds` before its
 * password is checked: slower, never refused, so the right password still signs in.
 */
export const LOGIN_RATE_LIMIT = {
  perEmailAndAddress: 10,
  perAddress: 50,
  perEmail: 100,
  slowdownSeconds: 2,
  windowSeconds: 15 * 60,
} as const;

export type LoginRateLimit = { [K in keyof typeof LOGIN_RATE_LIMIT]: number };

/** Dynamic client registrations count per client address in windows this long (the budget: config). */
export const REGISTRATION_WINDOW_SECONDS = 3600;

/** `{base}/oauth/mcp`: the `iss` of every token. */
export function issuerOf(baseUrl: string): string {
  return `${baseUrl}${ISSUER_PATH}`;
}
