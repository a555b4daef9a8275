import { TooManyRequestsError } from '../core/errors';
import {
  admitRequest,
  type PerMinute,
  type RateClass,
  type RateLimitSettings,
  type RateLimits,
  type RateVerdict,
  rateLimitMessage,
  retryAfterSeconds,
} from '../core/rate-limits';
import type { Services } from '../services';

export interface RateLimitCacheOptions {
  /** An account's own limits are reused this long at most (AWS: a change takes effect within it). */
  ttlMs: number;
  capacity: number;
  /**
   * Changes whenever another process sets a limit (the local host's account-limits log, written
   * by the admin CLI): every cached entry is dropped then, so a change takes effect at once.
   */
  changes?: () => string;
}

/**
 * Every request needs its account's own rate limits: kept in memory for a while instead of one
 * more read per request. A limit set through this cache replaces its entry at once.
 */
export class RateLimitCache implements RateLimitSettings {
  private readonly entries = new Map<string, { limits: Partial<RateLimits>; readAt: number }>();
  private seen: string | undefined;

  constructor(
    private readonly store: RateLimitSettings,
    private readonly options: RateLimitCacheOptions,
  ) {
    this.seen = options.changes?.();
  }

  async getRateLimits(accountId: string, now = Date.now()): Promise<Partial<RateLimits>> {
    const stamp = this.options.changes?.();
    if (stamp !== this.seen) {
      this.entries.clear();
      this.seen = stamp;
    }
    const cached = this.entries.get(accountId);
    if (cached && now - cached.readAt < this.options.ttlMs) return cached.limits;
    const limits = await this.store.getRateLimits(accountId);
    // Map order is insertion order: the oldest entry goes first.
    this.entries.delete(accountId);
    this.entries.set(accountId, { limits, readAt: now });
    if (this.entries.size > this.options.capacity) this.entries.delete(this.entries.keys().next().value!);
    return limits;
  }

  async setRateLimits(accountId: string, limits: Partial<Record<RateClass, PerMinute | 'default'>>) {
    await this.store.setRateLimits(accountId, limits);
    this.entries.delete(accountId);
  }
}

/** The verdict as response headers: the budget, what is left of it, when it renews (epoch s). */
export function rateLimitHeaders(verdict: RateVerdict | undefined): Record<string, string> {
  if (!verdict) return {};
  return {
    'x-ratelimit-limit': String(verdict.limit),
    'x-ratelimit-remaining': String(verdict.remaining),
    'x-ratelimit-reset': String(Math.ceil(verdict.resetAt / 1000)),
    'x-ratelimit-resource': verdict.rateClass,
  };
}

/** A request over its class's budget: 429 with `Retry-After` (an `isError` result in MCP). */
export class RateLimitedError extends TooManyRequestsError {
  readonly retryAfterSeconds: number;
  constructor(
    readonly verdict: RateVerdict,
    now = Date.now(),
  ) {
    super(rateLimitMessage(verdict, now));
    this.retryAfterSeconds = retryAfterSeconds(verdict, now);
  }
}

/**
 * Counts one request of the account against its class's budget (its own limit, else the
 * deployment's): undefined when the class is unlimited for it; RateLimitedError when the budget
 * is used up.
 */
export async function enforceRateLimit(
  services: Pick<Services, 'rateLimits' | 'requestCounter' | 'config'>,
  accountId: string,
  rateClass: RateClass,
  now = Date.now(),
): Promise<RateVerdict | undefined> {
  const limits = { ...services.config.rateLimits, ...(await services.rateLimits.getRateLimits(accountId)) };
  const verdict = await admitRequest(services.requestCounter, limits, accountId, rateClass, now);
  if (verdict && !verdict.allowed) throw new RateLimitedError(verdict, now);
  return verdict;
}
