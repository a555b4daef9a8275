import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `osk_<keyId>_<secret>`.
 * - `osk_` marks a key of this service (secret scanners can match it),
 * - keyId: 8 random bytes as hex: visible, used to look the key up,
 * - secret: 32 random bytes (256 bits) as base64url.
 * Keys are high-entropy random values, so a fast hash (SHA-256) is the right storage form: there is
 * nothing to brute-force the way there is with passwords.
 */
const KEY_PATTERN = /^osk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface GeneratedApiKey {
  apiKey: string;
  keyId: string;
  prefix: string;
  secretHash: string;
}

export function generateApiKey(): GeneratedApiKey {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const apiKey = `osk_${keyId}_${secret}`;
  return { apiKey, keyId, prefix: apiKeyPrefix(keyId), secretHash: hashApiKey(apiKey) };
}

export function apiKeyPrefix(keyId: string): string {
  return `osk_${keyId}`;
}

export function hashApiKey(apiKey: string): string {
  // One-shot hash: no Hash object per request (every authenticated request hashes its key).
  return hash('sha256', apiKey, 'hex');
}

/** The key id of a well-formed key, or undefined for anything else. */
export function parseApiKey(apiKey: string): { keyId: string } | undefined {
  const match = KEY_PATTERN.exec(apiKey);
  return match ? { keyId: match[1]! } : undefined;
}

/** Compares the presented key with a stored hash in constant time. */
export function apiKeyMatches(apiKey: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(apiKey), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
