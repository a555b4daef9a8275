import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Account } from '../core/accounts';
import { BadRequestError, ConflictError } from '../core/errors';
import type { IdempotencyStore } from '../core/idempotency';
import { logger } from './logger';

/** The request header (lower case, as httpHeaderNormalizer leaves it). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** On a replayed answer. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** A key and its answer are kept this long. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/** A claim this old whose request never answered belongs to a request that died (API Gateway cuts at 29 s). */
const STALE_CLAIM_MS = 60_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs a request that starts or creates something at most once per `Idempotency-Key`: the first
 * request with a key runs and its 2xx answer is kept for 24 hours; the same request again gets that
 * answer (`Idempotent-Replayed: true`) without running; the same key with another request is a 400;
 * while the first still runs, 409. A failed request (an error, or an answer that is not 2xx) gives
 * the key back, so a corrected retry may use it. Without the header, the request just runs.
 */
export async function idempotently(
  store: IdempotencyStore,
  account: Account,
  event: APIGatewayProxyEvent,
  requestBody: unknown,
  run: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  const key = event.headers?.[IDEMPOTENCY_KEY_HEADER];
  if (key === undefined) return run();
  if (!KEY.test(key)) {
    throw new BadRequestError(
      'The Idempotency-Key header must be 1-255 visible ASCII characters (no spaces), e.g. a UUID.',
    );
  }
  const now = new Date();
  const fingerprint = fingerprintOf(event, requestBody);
  const claim = await store.claim(
    {
      accountId: account.accountId,
      key,
      fingerprint,
      state: 'in_progress',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_HOURS * 3_600_000).toISOString(),
    },
    STALE_CLAIM_MS,
  );
  if (claim.outcome === 'taken') {
    const held = claim.record;
    if (held.fingerprint !== fingerprint) {
      throw new BadRequestError(
        `Idempotency-Key "${key}" was used for a different request in the last ${IDEMPOTENCY_WINDOW_HOURS} hours; send a new key with a new request.`,
      );
    }
    if (held.state !== 'completed' || !held.answer) {
      throw new ConflictError(
        `A request with Idempotency-Key "${key}" is still being processed; retry in a few seconds to get its answer.`,
      );
    }
    return {
      statusCode: held.answer.statusCode,
      headers: { 'content-type': 'application/json', [REPLAYED_HEADER]: 'true' },
      body: held.answer.body,
    };
  }
  let response: APIGatewayProxyResult;
  try {
    response = await run();
  } catch (error) {
    await giveBack(store, account, key);
    throw error;
  }
  if (response.statusCode >= 200 && response.statusCode < 300) {
    // The request did its work: its answer goes back even if it cannot be kept for a resend.
    await store
      .complete(account.accountId, key, { statusCode: response.statusCode, body: response.body })
      .catch((error: unknown) => {
        logger.warn('an idempotent answer could not be stored', { key, error: error as Error });
      });
  } else {
    await giveBack(store, account, key);
  }
  return response;
}

/** The request as what it asks: method, path, query string and body, with object keys in order. */
function fingerprintOf(event: APIGatewayProxyEvent, body: unknown): string {
  const sorted = (_key: string, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value;
  const request = [event.httpMethod, event.path, event.queryStringParameters ?? {}, body];
  return createHash('sha256').update(JSON.stringify(request, sorted)).digest('hex');
}

async function giveBack(store: IdempotencyStore, account: Account, key: string): Promise<void> {
  // A key left claimed only delays its reuse until the claim is stale.
  await store.release(account.accountId, key).catch((error: unknown) => {
    logger.warn('an idempotency key could not be released', { key, error: error as Error });
  });
}
