import { randomBytes } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

/**
 * The keys that sign access tokens (ES256). The newest key signs; older keys stay published in the
 * JWKS until every token they signed has expired, then they are dropped. Keys live in a
 * `SigningKeyStore`: a file under `.data/` locally, a Secrets Manager secret in AWS.
 */
export const SIGNING_ALGORITHM = 'ES256';

export interface StoredSigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms when a newer key took over signing. */
  retiredAt?: number;
}

/** Newest first: `keys[0]` signs. */
export interface SigningKeySet {
  keys: StoredSigningKey[];
}

export interface SigningKeyStore {
  load(): Promise<SigningKeySet | undefined>;
  save(set: SigningKeySet): Promise<void>;
}

export interface SigningKeyPolicy {
  /** A key signs for this long, then a new one takes over. */
  rotateAfterMs: number;
  /** A retired key stays published this long (the longest access-token lifetime, plus margin). */
  publishRetiredForMs: number;
  /** How long a process trusts its cached copy before reading the store again. */
  reloadAfterMs: number;
}

export const DEFAULT_KEY_POLICY: SigningKeyPolicy = {
  rotateAfterMs: 30 * 24 * 3600 * 1000,
  publishRetiredForMs: 2 * 3600 * 1000,
  reloadAfterMs: 5 * 60 * 1000,
};

export async function newSigningKey(now: number): Promise<StoredSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const kid = `${new Date(now).toISOString().slice(0, 10)}-${randomBytes(6).toString('hex')}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM, use: 'sig' };
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), kid }, publicJwk, createdAt: now };
}

/** The set after a rotation: a new signing key first, the old ones retired, expired ones dropped. */
export async function rotatedKeySet(
  set: SigningKeySet | undefined,
  now: number,
  policy: SigningKeyPolicy,
): Promise<SigningKeySet> {
  const kept = (set?.keys ?? [])
    .map((key) => ({ ...key, retiredAt: key.retiredAt ?? now }))
    .filter((key) => now - key.retiredAt < policy.publishRetiredForMs);
  return { keys: [await newSigningKey(now), ...kept] };
}

/** Drops retired keys whose tokens have all expired (the set is unchanged otherwise). */
function withoutExpiredKeys(set: SigningKeySet, now: number, policy: SigningKeyPolicy): SigningKeySet {
  return {
    keys: set.keys.filter(
      (key, index) => index === 0 || now - (key.retiredAt ?? now) < policy.publishRetiredForMs,
    ),
  };
}

/** Signing and verification keys with a cache; rotates on use when the signing key is old. */
export class SigningKeys {
  private cached: { set: SigningKeySet; loadedAt: number } | undefined;
  private readonly imported = new Map<string, Promise<CryptoKey | Uint8Array>>();

  constructor(
    private readonly store: SigningKeyStore,
    private readonly policy: SigningKeyPolicy = DEFAULT_KEY_POLICY,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The key that signs now (created, or rotated, when needed). */
  async signingKey(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
    let set = await this.keySet();
    const now = this.clock();
    const current = set.keys[0];
    if (!current || now - current.createdAt >= this.policy.rotateAfterMs) {
      set = await this.rotate();
    }
    const signing = set.keys[0]!;
    return { kid: signing.kid, key: await this.importKey(signing.kid, signing.privateJwk) };
  }

  /** The public key for `kid`; the store is read again once for a kid this process has not seen. */
  async verificationKey(kid: string): Promise<CryptoKey | Uint8Array | undefined> {
    let found = (await this.keySet()).keys.find((key) => key.kid === kid);
    if (!found) {
      found = (await this.keySet(true)).keys.find((key) => key.kid === kid);
    }
    return found ? this.importKey(`public:${kid}`, found.publicJwk) : undefined;
  }

  /** The JWKS document: every published public key. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const set = await this.keySet();
    if (set.keys.length === 0) await this.signingKey();
    return { keys: (await this.keySet()).keys.map((key) => key.publicJwk) };
  }

  /** Starts signing with a new key; the old one stays published until its tokens expire. */
  async rotate(): Promise<SigningKeySet> {
    const latest = await this.store.load();
    const set = await rotatedKeySet(latest, this.clock(), this.policy);
    await this.store.save(set);
    // Two processes may rotate at once: whatever the store kept is the truth.
    const saved = (await this.store.load()) ?? set;
    this.cached = { set: saved, loadedAt: this.clock() };
    return saved;
  }

  private async keySet(forceReload = false): Promise<SigningKeySet> {
    const now = this.clock();
    if (forceReload || !this.cached || now - this.cached.loadedAt >= this.policy.reloadAfterMs) {
      const loaded = (await this.store.load()) ?? { keys: [] };
      this.cached = { set: withoutExpiredKeys(loaded, now, this.policy), loadedAt: now };
    }
    return this.cached.set;
  }

  private importKey(cacheKey: string, jwk: JWK): Promise<CryptoKey | Uint8Array> {
    let key = this.imported.get(cacheKey);
    if (!key) {
      key = importJWK(jwk, SIGNING_ALGORITHM);
      this.imported.set(cacheKey, key);
    }
    return key;
  }
}
