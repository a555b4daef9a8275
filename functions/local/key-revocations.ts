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
 * Credit limits set by the admin CLI, logged the same way: the local host's cached credit
 * standings (accounts/credit-standing-cache.ts) are dropped on the next check.
 */
const CREDIT_LIMITS_FILE = 'credit-limits.log';

export function creditLimitStamp(dataDir: string): () => string {
  return stampOf(join(dataDir, CREDIT_LIMITS_FILE));
}

export async function recordCreditLimit(dataDir: string, accountId: string, credits: number): Promise<void> {
  await appendFile(
    join(dataDir, CREDIT_LIMITS_FILE),
    `${new Date().toISOString()} ${accountId} ${credits}\n`,
  );
}

export async function recordRevocation(dataDir: string, keyId: string, revokedAt: string): Promise<void> {
  await appendFile(join(dataDir, FILE), `${revokedAt} ${keyId}\n`);
}
