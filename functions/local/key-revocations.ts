import { statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A log under the data dir that every API-key revocation appends to, whichever process revokes
 * (the admin CLI writes straight to the host's DynamoDB). The local host's key cache
 * (accounts/api-key-cache.ts) checks the file's size and time before each lookup: one stat call,
 * no read, and a revoked key is refused on the very next request.
 */
const FILE = 'api-key-revocations.log';

export function revocationStamp(dataDir: string): () => string {
  return stampOf(join(dataDir, FILE));
}

/** A file's size and time: changes with every append to it, for one stat call. */
function stampOf(path: string): () => string {
  return () => {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.size}:${stat.mtimeMs}` : 'none';
  };
}

/**
 * Credit and rate limits set by the admin CLI, logged the same way: the local host's cached
 * credit standings (accounts/credit-standing-cache.ts) and accounts' rate limits
 * (accounts/rate-limits.ts) are dropped on the next check.
 */
const ACCOUNT_LIMITS_FILE = 'credit-limits.log';

export function accountLimitStamp(dataDir: string): () => string {
  return stampOf(join(dataDir, ACCOUNT_LIMITS_FILE));
}

/** Logs a limit change, e.g. `credits 500` or `write-rate 60`. */
export async function recordAccountLimit(dataDir: string, accountId: string, change: string): Promise<void> {
  await appendFile(
    join(dataDir, ACCOUNT_LIMITS_FILE),
    `${new Date().toISOString()} ${accountId} ${change}\n`,
  );
}

export async function recordRevocation(dataDir: string, keyId: string, revokedAt: string): Promise<void> {
  await appendFile(join(dataDir, FILE), `${revokedAt} ${keyId}\n`);
}
