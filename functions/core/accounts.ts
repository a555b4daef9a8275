/**
 * Accounts own everything they create. API keys authenticate an account; only a hash of the
 * secret part is stored, and the visible key id (in the key's prefix) tells keys apart.
 */
export interface Account {
  accountId: string;
  /** Unique, URL- and SQL-safe name used in owned object names (e.g. materialized views). */
  handle: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  /** The visible, non-secret start of the key (e.g. `osk_1a2b3c4d`), for listings and logs. */
  prefix: string;
  /** Hex SHA-256 of the whole key. */
  secretHash: string;
  name: string;
  createdAt: string;
  revokedAt?: string;
  lastUsedAt?: string;
  /** A copy of the (immutable) account, so authenticating a request takes one read. */
  account?: Account;
}

export interface AccountStore {
  /** Creates the account; ConflictError when the handle is taken. */
  createAccount(account: Account): Promise<void>;
  getAccount(accountId: string): Promise<Account | undefined>;
  getAccountByHandle(handle: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  putApiKey(record: ApiKeyRecord): Promise<void>;
  getApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (idempotent: keeps the first revocation time); NotFoundError if absent. */
  revokeApiKey(keyId: string, revokedAt: string): Promise<ApiKeyRecord>;
}
