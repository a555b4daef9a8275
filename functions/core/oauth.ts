import type { Account } from './accounts';

/**
 * OAuth 2.0 for MCP clients: the records the authorization server keeps, and the port that stores
 * them. Every secret (authorization codes, refresh tokens, session ids, passwords) is stored as a
 * hash only. Every write is a single-item conditional write (see docs/adr/0002), and expiry is a
 * stored time checked on read: dynalite has no TTL.
 */
export const OAUTH_SCOPE = 'mcp:service:full';

/** A registered (RFC 7591) client; clients named by a metadata-document URL are not stored. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  createdAt: string;
  /** Set when an admin deletes the client: the token endpoint then answers `invalid_client`. */
  deletedAt?: string;
}

/** An email + password that signs in to an account on the login page. */
export interface LoginRecord {
  email: string;
  accountId: string;
  /** `scrypt$N$r$p$salt$hash` (see functions/oauth/passwords.ts). */
  passwordHash: string;
  updatedAt: string;
}

export interface BrowserSession {
  sessionHash: string;
  accountId: string;
  expiresAt: number;
}

/** What an authorization code was issued for; it may be redeemed once, by the same client. */
export interface AuthorizationCode {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  accountId: string;
  /** The refresh-token family the code's redemption creates (revoked if the code is replayed). */
  familyId: string;
  expiresAt: number;
  usedAt?: number;
}

/**
 * A refresh-token family: every token rotated out of one authorization. Only hashes are kept:
 * the current token, the one it replaced (presented again within the grace window, it gets a
 * further current token, for a refresh that raced the rotation) and those grace tokens. Any other
 * token of the family (`ort_<familyId>_…`) was rotated out earlier: presenting it is a replay and
 * revokes the family (RFC 9700 §4.14.2), however many rotations ago it was replaced.
 */
export interface TokenFamily {
  familyId: string;
  accountId: string;
  clientId: string;
  scope: string;
  resource: string;
  currentHash: string;
  /** Further current tokens issued within the grace window of the last rotation. */
  graceHashes?: string[];
  /** Written by earlier versions (a single grace token); still accepted until the next rotation. */
  graceHash?: string;
  previousHash?: string;
  rotatedAt: number;
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
  /** A copy of the (immutable) account: the authorizer needs one read per bearer request. */
  account: Account;
}

export interface Consent {
  accountId: string;
  clientId: string;
  scope: string;
  grantedAt: string;
}

export interface OAuthStore {
  putClient(client: OAuthClient): Promise<void>;
  getClient(clientId: string): Promise<OAuthClient | undefined>;
  /** Marks the client deleted; NotFoundError if absent. */
  deleteClient(clientId: string, deletedAt: string): Promise<void>;

  /** Creates or replaces the login of `email`; ConflictError if the email signs in to another account. */
  putLogin(login: LoginRecord): Promise<void>;
  getLogin(email: string): Promise<LoginRecord | undefined>;
  /** Failed sign-ins counted under `key` (an email or a client address) in the window. */
  loginFailures(key: string, windowStart: number): Promise<number>;
  /** Counts one failed sign-in in the window (one atomic update). */
  countLoginFailure(key: string, windowStart: number, expiresAt: number): Promise<void>;

  putSession(session: BrowserSession): Promise<void>;
  getSession(sessionHash: string, now: number): Promise<BrowserSession | undefined>;

  putConsent(consent: Consent): Promise<void>;
  getConsent(accountId: string, clientId: string): Promise<Consent | undefined>;
  listConsents(accountId: string): Promise<Consent[]>;
  deleteConsent(accountId: string, clientId: string): Promise<void>;

  putCode(code: AuthorizationCode): Promise<void>;
  getCode(codeHash: string): Promise<AuthorizationCode | undefined>;
  /** Marks the code used if it is unused and unexpired; false when it was not (one conditional write). */
  redeemCode(codeHash: string, now: number): Promise<boolean>;

  putFamily(family: TokenFamily): Promise<void>;
  getFamily(familyId: string): Promise<TokenFamily | undefined>;
  /**
   * Rotates the family from `presentedHash` (its current or a grace token) to `nextHash`, in one
   * conditional write, dropping the grace tokens; false when the family was not in that state
   * (already rotated, revoked, expired).
   */
  rotateFamily(familyId: string, presentedHash: string, nextHash: string, now: number): Promise<boolean>;
  /**
   * Adds a further current token for a refresh that raced a rotation (several may race: each
   * gets its own): only while `presentedHash` is the token just replaced and the rotation is
   * younger than `graceStart`.
   */
  addGraceToken(
    familyId: string,
    presentedHash: string,
    graceHash: string,
    graceStart: number,
    now: number,
  ): Promise<boolean>;
  revokeFamily(familyId: string, now: number): Promise<void>;
  listFamilies(accountId: string, clientId?: string): Promise<TokenFamily[]>;
}
