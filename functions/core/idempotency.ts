/**
 * Idempotent requests (the `Idempotency-Key` header, as in the IETF httpapi draft and Stripe): a
 * client that resends a request it does not know the outcome of, with the same key, gets the first
 * answer again instead of a second run (functions/http/idempotency.ts).
 */

/** A stored answer: what the first request returned. */
export interface IdempotentAnswer {
  statusCode: number;
  body: string;
}

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  /** SHA-256 of the request (method, path, query and body): one key, one request. */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  answer?: IdempotentAnswer;
  /** ISO times. */
  createdAt: string;
  expiresAt: string;
}

/** What claiming a key found. */
export type IdempotencyClaim =
  /** Nobody had it (or its earlier claim lapsed): run the request. */
  | { outcome: 'claimed' }
  /** A request took it before: its record, to compare and maybe replay. */
  | { outcome: 'taken'; record: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Takes the key for this request unless a live record holds it: an unexpired completed answer,
   * or an in-progress claim younger than `staleAfterMs` (older ones belong to a request that died).
   */
  claim(record: IdempotencyRecord, staleAfterMs: number): Promise<IdempotencyClaim>;
  /** Stores the answer of the request that claimed the key. */
  complete(accountId: string, key: string, answer: IdempotentAnswer): Promise<void>;
  /** Gives the key back (the request failed), so the client may try again with it. */
  release(accountId: string, key: string): Promise<void>;
}
