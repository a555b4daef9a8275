import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitCache } from '../../functions/accounts/rate-limits';
import { DynamoAccountCounters } from '../../functions/aws/dynamo/account-limits-store';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { DynamoRequestCounter } from '../../functions/aws/dynamo/request-counter';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import { newId } from '../../functions/core/ids';
import {
  admitRequest,
  parsePerMinute,
  RATE_WINDOW_MS,
  type RateLimitSettings,
  type RequestCounter,
  rateLimitMessage,
  retryAfterSeconds,
} from '../../functions/core/rate-limits';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';
import { InMemoryRequestCounter } from '../../functions/local/request-counter';

const TABLE = SERVICE_TABLE.localName;
/** A window start well inside a minute, so nothing below depends on the wall clock. */
const WINDOW = Date.UTC(2026, 10, 28, 12, 0, 0);

let dynamo: LocalDynamo;
let doc: ReturnType<typeof localDynamoClient>['doc'];
beforeAll(async () => {
  dynamo = await startDynalite();
  const local = localDynamoClient(dynamo.endpoint);
  doc = local.doc;
  await ensureTables(local.client);
});
afterAll(() => dynamo?.close());

// The local host's counter and the deployed one must give the same verdicts.
describe.each([
  ['in memory (the local host)', () => new InMemoryRequestCounter()],
  ['DynamoDB (AWS), on dynalite', () => new DynamoRequestCounter(doc, TABLE)],
] as [string, () => RequestCounter][])('request counter %s', (_name, make) => {
  it('counts up to the limit, then refuses without counting', async () => {
    const counter = make();
    const account = newId();
    const counts = [];
    for (let i = 0; i < 5; i++) counts.push(await counter.count(account, 'write', WINDOW, 3));
    expect(counts).toEqual([1, 2, 3, undefined, undefined]);
    // A higher limit in the same window sees 3 counted, not 5: refusals were not counted.
    expect(await counter.count(account, 'write', WINDOW, 10)).toBe(4);
  });

  it('keeps classes, accounts and windows apart', async () => {
    const counter = make();
    const [a, b] = [newId(), newId()];
    expect(await counter.count(a, 'write', WINDOW, 1)).toBe(1);
    expect(await counter.count(a, 'write', WINDOW, 1)).toBeUndefined();
    expect(await counter.count(a, 'read', WINDOW, 1)).toBe(1);
    expect(await counter.count(b, 'write', WINDOW, 1)).toBe(1);
    expect(await counter.count(a, 'write', WINDOW + RATE_WINDOW_MS, 1)).toBe(1);
  });

  it('never admits more than the limit among concurrent requests', async () => {
    const counter = make();
    const account = newId();
    const counts = await Promise.all(
      Array.from({ length: 40 }, () => counter.count(account, 'read', WINDOW, 15)),
    );
    expect(counts.filter((c) => c !== undefined).sort((x, y) => x! - y!)).toEqual(
      Array.from({ length: 15 }, (_, i) => i + 1),
    );
  });
});

describe('the DynamoDB request counter', () => {
  it('keeps each window in its own item, apart from the account, expiring a window after it ends', async () => {
    const account = newId();
    await new DynamoRequestCounter(doc, TABLE).count(account, 'read', WINDOW, 5);
    const { Item } = await doc.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `RATE#${account}`, sk: `read#${WINDOW}` } }),
    );
    expect(Item).toMatchObject({ requests: 1, ttl: (WINDOW + 2 * RATE_WINDOW_MS) / 1000 });
  });

  it("keeps a longer window (an address's client registrations per hour) until a window after it ends", async () => {
    const subject = `addr:${newId()}`;
    await new DynamoRequestCounter(doc, TABLE).count(subject, 'registration', WINDOW, 5, 3_600_000);
    const { Item } = await doc.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `RATE#${subject}`, sk: `registration#${WINDOW}` } }),
    );
    expect(Item).toMatchObject({ requests: 1, ttl: (WINDOW + 2 * 3_600_000) / 1000 });
  });
});

describe('verdicts', () => {
  it('reports the budget, what is left and when it renews; an unlimited class is not counted', async () => {
    const counter = new InMemoryRequestCounter();
    const now = WINDOW + 45_500;
    const limits = { read: 'unlimited', write: 2 } as const;
    const first = await admitRequest(counter, limits, 'a', 'write', now);
    expect(first).toEqual({
      rateClass: 'write',
      allowed: true,
      limit: 2,
      remaining: 1,
      resetAt: WINDOW + RATE_WINDOW_MS,
    });
    await admitRequest(counter, limits, 'a', 'write', now);
    const refused = (await admitRequest(counter, limits, 'a', 'write', now))!;
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(retryAfterSeconds(refused, now)).toBe(15);
    expect(rateLimitMessage(refused, now)).toBe(
      'Rate limit reached: this account may make 2 write requests (creating, changing, deleting or executing) per minute. Try again in 15 s.',
    );
    // The next window starts afresh.
    expect(await admitRequest(counter, limits, 'a', 'write', WINDOW + RATE_WINDOW_MS)).toMatchObject({
      allowed: true,
      remaining: 1,
    });
    expect(await admitRequest(counter, limits, 'a', 'read', now)).toBeUndefined();
  });

  it('parses limits as operators give them', () => {
    expect(parsePerMinute('120')).toBe(120);
    expect(parsePerMinute(' Unlimited ')).toBe('unlimited');
    expect(parsePerMinute('default')).toBe('default');
    for (const bad of ['0', '-5', '1.5', '1e3', 'lots', '', '99999999999999999999']) {
      expect(parsePerMinute(bad)).toBeUndefined();
    }
  });
});

describe("accounts' own rate limits", () => {
  it('are stored next to the credit limit, and `default` removes one', async () => {
    const counters = new DynamoAccountCounters(doc, TABLE);
    const account = newId();
    expect(await counters.getRateLimits(account)).toEqual({});
    await counters.setCreditLimit(account, 50);
    await counters.setRateLimits(account, { read: 'unlimited', write: 30 });
    expect(await counters.getRateLimits(account)).toEqual({ read: 'unlimited', write: 30 });
    await counters.setRateLimits(account, { read: 'default' });
    expect(await counters.getRateLimits(account)).toEqual({ write: 30 });
    expect(await counters.getCreditLimit(account)).toBe(50);
  });

  it('are cached until their time is up or a change is logged; a change made through the cache shows at once', async () => {
    const stored = new Map<string, number>();
    let reads = 0;
    const store: RateLimitSettings = {
      getRateLimits: async (account) => {
        reads++;
        return stored.has(account) ? { write: stored.get(account)! } : {};
      },
      setRateLimits: async (account, limits) => {
        stored.set(account, limits.write as number);
      },
    };
    let log = 'none';
    const cache = new RateLimitCache(store, { ttlMs: 60_000, capacity: 10, changes: () => log });
    expect(await cache.getRateLimits('a', 0)).toEqual({});
    stored.set('a', 5); // set by another process
    expect(await cache.getRateLimits('a', 59_999)).toEqual({});
    expect(await cache.getRateLimits('a', 60_000)).toEqual({ write: 5 });
    stored.set('a', 6);
    log = '1:1'; // the admin CLI logged it
    expect(await cache.getRateLimits('a', 60_001)).toEqual({ write: 6 });
    await cache.setRateLimits('a', { write: 7 });
    expect(await cache.getRateLimits('a', 60_002)).toEqual({ write: 7 });
    expect(reads).toBe(4);
  });
});
