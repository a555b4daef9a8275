import type { Account, AccountStore, ApiKeyRecord } from '../core/accounts';

export interface ApiKeyCacheOptions {
  /** How long a key record is reused before it is read again. */
  ttlMs: number;
  capacity: number;
  /**
   * Changes whenever a key is revoked anywhere (another process included, e.g. the admin CLI);
   * a change empties the cache before the next lookup, so a revocation takes effect at once.
   */
  revocations: () => string;
  now?: () => number;
}

/**
 * An AccountStore that keeps the API-key records it read (each carries its account) for a short
 * time, so authenticating a request usually costs no DynamoDB read. Only usable where revocations
 * can be observed at once (`revocations`): the local host wires it with a file the admin CLI
 * touches; the AWS composition does not use it (each Lambda instance would keep a revoked key
 * alive until its entry expires). Revoked or unknown keys are never cached.
 *
 * Accounts never change once created, so the ones read by id are kept too (a pipeline node reads
 * its account as it starts); an unknown id is read again each time (the CLI may create it).
 */
export class CachedApiKeys implements AccountStore {
  private readonly entries = new Map<string, { record: ApiKeyRecord; until: number }>();
  private readonly accounts = new Map<string, Account>();
  private seen: string;

  constructor(
    private readonly store: AccountStore,
    private readonly options: ApiKeyCacheOptions,
  ) {
    this.seen = options.revocations();
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const now = (this.options.now ?? Date.now)();
    const stamp = this.options.revocations();
    if (stamp !== this.seen) {
      this.entries.clear();
      this.seen = stamp;
    }
    const cached = this.entries.get(keyId);
    if (cached && cached.until > now) return copyOf(cached.record);
    this.entries.delete(keyId);
    const record = await this.store.getApiKey(keyId);
    if (record && !record.revokedAt) {
      this.entries.set(keyId, { record: copyOf(record), until: now + this.options.ttlMs });
      if (this.entries.size > this.options.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    return record;
  }

  async revokeApiKey(keyId: string, revokedAt: string): Promise<ApiKeyRecord> {
    this.entries.delete(keyId);
    const record = await this.store.revokeApiKey(keyId, revokedAt);
    this.entries.delete(keyId);
    return record;
  }

  async putApiKey(record: ApiKeyRecord): Promise<void> {
    this.entries.delete(record.keyId);
    await this.store.putApiKey(record);
  }

  createAccount(account: Account): Promise<void> {
    return this.store.createAccount(account);
  }

  async getAccount(accountId: string): Promise<Account | undefined> {
    const cached = this.accounts.get(accountId);
    if (cached) return { ...cached };
    const account = await this.store.getAccount(accountId);
    if (account) {
      this.accounts.set(accountId, { ...account });
      if (this.accounts.size > this.options.capacity)
        this.accounts.delete(this.accounts.keys().next().value!);
    }
    return account;
  }

  getAccountByHandle(handle: string): Promise<Account | undefined> {
    return this.store.getAccountByHandle(handle);
  }

  listAccounts(): Promise<Account[]> {
    return this.store.listAccounts();
  }

  listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.store.listApiKeys(accountId);
  }
}

/** A copy the caller may change freely (every field is a string but the account, copied too). */
function copyOf(record: ApiKeyRecord): ApiKeyRecord {
  return record.account ? { ...record, account: { ...record.account } } : { ...record };
}
