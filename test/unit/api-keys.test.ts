import { describe, expect, it } from 'vitest';
import { apiKeyMatches, generateApiKey, hashApiKey, parseApiKey } from '../../functions/core/api-keys';

describe('API keys', () => {
  it('are random, high-entropy and carry a visible prefix with the key id', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.apiKey).toMatch(/^osk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(a.apiKey.startsWith(`${a.prefix}_`)).toBe(true);
    expect(parseApiKey(a.apiKey)).toEqual({ keyId: a.keyId });
  });

  it('are stored as a SHA-256 hash, never as the key', () => {
    const key = generateApiKey();
    expect(key.secretHash).toBe(hashApiKey(key.apiKey));
    expect(key.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.secretHash).not.toContain(key.apiKey.slice(22));
  });

  it('match only the exact key', () => {
    const key = generateApiKey();
    expect(apiKeyMatches(key.apiKey, key.secretHash)).toBe(true);
    const tampered = `${key.apiKey.slice(0, -1)}${key.apiKey.endsWith('A') ? 'B' : 'A'}`;
    expect(apiKeyMatches(tampered, key.secretHash)).toBe(false);
    expect(apiKeyMatches(key.apiKey, 'abcd')).toBe(false);
  });

  it('reject malformed keys before any lookup', () => {
    for (const bad of [
      '',
      'osk_',
      'osk_123_abc',
      `sk_${'a'.repeat(16)}_${'b'.repeat(43)}`,
      `osk_${'G'.repeat(16)}_${'b'.repeat(43)}`,
    ]) {
      expect(parseApiKey(bad)).toBeUndefined();
    }
  });
});
