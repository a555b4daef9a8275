import type { CountedClass, RequestCounter } from '../core/rate-limits';

/**
 * The local host's request counts, in memory: it is the only process that answers requests, so
 * its count is the whole count, and a request costs no store write (AWS counts in DynamoDB,
 * functions/aws/dynamo/request-counter.ts; the same windows and the same verdicts). Only the
 * current window of each subject and class is kept.
 */
export class InMemoryRequestCounter implements RequestCounter {
  private readonly windows = new Map<string, { windowStart: number; requests: number }>();

  async count(
    subject: string,
    counted: CountedClass,
    windowStart: number,
    limit: number,
  ): Promise<number | undefined> {
    const key = `${subject}\n${counted}`;
    let window = this.windows.get(key);
    if (!window || window.windowStart < windowStart) {
      window = { windowStart, requests: 0 };
      this.windows.set(key, window);
    }
    // A request stamped before the window this count has moved to counts in the current one.
    if (window.requests >= limit) return undefined;
    window.requests++;
    return window.requests;
  }
}
