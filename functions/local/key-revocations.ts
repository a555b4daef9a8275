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
  const path = join(dataDir, FILE);
  return () => {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.size}:${stat.mtimeMs}` : 'none';
  };
}

export async function recordRevocation(dataDir: string, keyId: string, revokedAt: string): Promise<void> {
  await appendFile(join(dataDir, FILE), `${revokedAt} ${keyId}\n`);
}
