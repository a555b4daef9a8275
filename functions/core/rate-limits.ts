/**
 * Per-account request rate limits in Dune's two classes: writes (creating, changing, deleting,
 * executing, uploading) and reads (reading, listing, searching, results, status, cancel). Each
 * class has its own budget per fixed one-minute window, counted wherever the deployment keeps
 * its count (one DynamoDB item per account, class and minute in AWS, shared by every function;
 * memory on the local host, its only process). A refused request is not counted.
 */
export type RateClass = 'read' | 'write';

/** Requests per minute, or no limit at all (nothing is counted then). */
export type PerMinute = number | 'unlimited';

export interface RateLimits {
  read: PerMinute;
  write: PerMinute;
}

export const RATE_WINDOW_MS = 60_000;

/**
 * What a counter counts: an account's requests of a class, or (`registration`) the OAuth client
 * registrations of a client address (functions/oauth/use-cases.ts#admitRegistration).
 */
export type CountedClass = RateClass | 'registration';

/** Where requests are counted. */
export interface RequestCounter {
  /**
   * Counts one request of the subject (an account id, or `addr:<client address>`) and class in
   * the window of `windowMs` (default a minute) that starts at `windowStart` (epoch ms) unless
   * `limit` are counted there already: the count including it, or undefined when it is refused
   * (and not counted).
   */
  count(
    subject: string,
    counted: CountedClass,
    windowStart: number,
    limit: number,
    windowMs?: number,
  ): Promise<number | undefined>;
}

/** An account's own limits, which replace the deployment's defaults class by class. */
export interface RateLimitSettings {
  getRateLimits(accountId: string): Promise<Partial<RateLimits>>;
  /** Sets the given classes; `default` goes back to the deployment's default. */
  setRateLimits(accountId: string, limits: Partial<Record<RateClass, PerMinute | 'default'>>): Promise<void>;
}

/** The outcome of one request against its class's budget. */
export interface RateVerdict {
  rateClass: RateClass;
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** When the window ends (epoch ms). */
  resetAt: number;
}

export const windowStartOf = (now: number) => Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS;

/**
 * Counts one request against the account's budget: undefined when its class is unlimited (no
 * count is kept), else the verdict.
 */
export async function admitRequest(
  counter: RequestCounter,
  limits: RateLimits,
  accountId: string,
  rateClass: RateClass,
  now = Date.now(),
): Promise<RateVerdict | undefined> {
  const limit = limits[rateClass];
  if (limit === 'unlimited') return undefined;
  const windowStart = windowStartOf(now);
  const counted = await counter.count(accountId, rateClass, windowStart, limit);
  return {
    rateClass,
    allowed: counted !== undefined,
    limit,
    remaining: counted === undefined ? 0 : Math.max(0, limit - counted),
    resetAt: windowStart + RATE_WINDOW_MS,
  };
}

/** Seconds until the window ends, at least 1 (what `Retry-After` says). */
export function retryAfterSeconds(verdict: RateVerdict, now = Date.now()): number {
  return Math.max(1, Math.ceil((verdict.resetAt - now) / 1000));
}

const WHAT: Record<RateClass, string> = {
  write: 'creating, changing, deleting or executing',
  read: 'reading, searching, results, status and cancel',
};

/** The refusal's message: which budget, how big, and when to try again. */
export function rateLimitMessage(verdict: RateVerdict, now = Date.now()): string {
  return (
    `Rate limit reached: this account may make ${verdict.limit} ${verdict.rateClass} requests ` +
    `(${WHAT[verdict.rateClass]}) per minute. Try again in ${retryAfterSeconds(verdict, now)} s.`
  );
}

/** A limit as given by an operator: a positive whole number, `unlimited`, or `default`. */
export function parsePerMinute(text: string): PerMinute | 'default' | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'unlimited' || trimmed === 'default') return trimmed;
  if (!/^\d+$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
