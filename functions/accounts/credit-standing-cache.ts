import type { AccountUsage, UsageStore } from '../core/credits';

export interface CreditStandingCacheOptions {
  /** Entries kept at most (the oldest go first). */
  capacity: number;
  /**
   * Changes whenever a credit limit is set by another process (the admin CLI writes straight to
   * the host's DynamoDB; functions/local/admin-changes.ts): every cached standing is then dropped.
   */
  limitChanges: () => string;
}

type Standing = { creditsUsed: number; creditLimit?: number };

/**
 * Every submit checks the account's credit standing (one BatchGet) and the result storage it
 * uses (one read). Where this process writes all credit usage and stored bytes (the local host: it
 * records every run) and sees every limit change at once, both are kept in memory: the usage and
 * bytes this process adds are added to them, a limit it sets replaces it, a limit set elsewhere
 * drops every standing. Never in AWS, where many functions write.
 */
export class CreditStandingCache implements UsageStore {
  private readonly standings = new Map<string, Standing>();
  /** Result bytes stored per account: only this process adds to them. */
  private readonly storage = new Map<string, number>();
  /** Bumped by every change, so a read that raced one does not cache what it read. */
  private version = 0;
  private seen: string;

  constructor(
    private readonly store: UsageStore,
    private readonly options: CreditStandingCacheOptions,
  ) {
    this.seen = options.limitChanges();
  }

  async getCreditStanding(accountId: string, period: string): Promise<Standing> {
    this.dropIfLimitsChanged();
    const key = keyOf(accountId, period);
    const cached = this.standings.get(key);
    if (cached) return { ...cached };
    const version = this.version;
    const stamp = this.seen;
    const standing = await this.store.getCreditStanding(accountId, period);
    if (version === this.version && stamp === this.options.limitChanges()) this.remember(key, standing);
    return standing;
  }

  async addCredits(accountId: string, period: string, credits: number): Promise<void> {
    await this.store.addCredits(accountId, period, credits);
    this.version++;
    const cached = this.standings.get(keyOf(accountId, period));
    if (cached) cached.creditsUsed += credits;
  }

  async setCreditLimit(accountId: string, credits: number): Promise<void> {
    await this.store.setCreditLimit(accountId, credits);
    this.version++;
    for (const [key, standing] of this.standings) {
      if (key.startsWith(`${accountId}|`)) standing.creditLimit = credits;
    }
  }

  getCredits(accountId: string, periods: readonly string[]): Promise<AccountUsage[]> {
    return this.store.getCredits(accountId, periods);
  }

  async addStorageBytes(accountId: string, bytes: number): Promise<void> {
    await this.store.addStorageBytes(accountId, bytes);
    this.version++;
    const cached = this.storage.get(accountId);
    if (cached !== undefined) this.storage.set(accountId, Math.max(0, cached + bytes));
  }

  /** Every submit reads it (the result storage quota); this process records every result's bytes. */
  async getStorageBytes(accountId: string): Promise<number> {
    const cached = this.storage.get(accountId);
    if (cached !== undefined) return cached;
    const version = this.version;
    const bytes = await this.store.getStorageBytes(accountId);
    if (version === this.version) {
      if (this.storage.size >= this.options.capacity) this.storage.delete(this.storage.keys().next().value!);
      this.storage.set(accountId, bytes);
    }
    return bytes;
  }

  getCreditLimit(accountId: string): Promise<number | undefined> {
    return this.store.getCreditLimit(accountId);
  }

  private dropIfLimitsChanged(): void {
    const stamp = this.options.limitChanges();
    if (stamp === this.seen) return;
    this.seen = stamp;
    this.standings.clear();
  }

  private remember(key: string, standing: Standing): void {
    if (this.standings.size >= this.options.capacity) {
      const oldest = this.standings.keys().next().value;
      if (oldest !== undefined) this.standings.delete(oldest);
    }
    this.standings.set(key, { ...standing });
  }
}

const keyOf = (accountId: string, period: string) => `${accountId}|${period}`;
