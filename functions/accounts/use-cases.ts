import type { Account, AccountStore, ApiKeyRecord } from '../core/accounts';
import { apiKeyMatches, generateApiKey, parseApiKey } from '../core/api-keys';
import { BadRequestError, UnauthorizedError } from '../core/errors';
import { newId } from '../core/ids';

const HANDLE_PATTERN = /^[a-z][a-z0-9_]{2,31}$/;

export interface CreatedApiKey {
  /** The only time the whole key is ever shown. */
  apiKey: string;
  record: ApiKeyRecord;
}

export async function createAccount(
  store: AccountStore,
  input: { handle: string; name?: string },
  now = new Date(),
): Promise<Account> {
  if (!HANDLE_PATTERN.test(input.handle)) {
    throw new BadRequestError(
      `Invalid handle "${input.handle}": use 3-32 characters, lower-case letters, digits and underscores, starting with a letter.`,
    );
  }
  const account: Account = {
    accountId: newId(),
    handle: input.handle,
    name: input.name ?? input.handle,
    createdAt: now.toISOString(),
  };
  await store.createAccount(account);
  return account;
}

export async function createApiKey(
  store: AccountStore,
  accountId: string,
  name = 'default',
  now = new Date(),
): Promise<CreatedApiKey> {
  const account = await store.getAccount(accountId);
  if (!account) throw new BadRequestError(`No account with id ${accountId}.`);
  const generated = generateApiKey();
  const record: ApiKeyRecord = {
    keyId: generated.keyId,
    accountId,
    prefix: generated.prefix,
    secretHash: generated.secretHash,
    name,
    createdAt: now.toISOString(),
    account,
  };
  await store.putApiKey(record);
  return { apiKey: generated.apiKey, record };
}

export async function revokeApiKey(store: AccountStore, keyIdOrPrefix: string, now = new Date()) {
  const keyId = keyIdOrPrefix.replace(/^osk_/, '').split('_')[0] ?? '';
  return store.revokeApiKey(keyId, now.toISOString());
}

/**
 * Resolves a presented API key to its account. Every failure is the same 401 so callers learn
 * nothing about which keys exist.
 */
export async function authenticateApiKey(store: AccountStore, apiKey: string | undefined): Promise<Account> {
  if (!apiKey) {
    throw new UnauthorizedError(
      'Missing API key: send it in the x-service-api-key header or the api_key query parameter.',
    );
  }
  const parsed = parseApiKey(apiKey.trim());
  const record = parsed ? await store.getApiKey(parsed.keyId) : undefined;
  if (!record || !apiKeyMatches(apiKey.trim(), record.secretHash))
    throw new UnauthorizedError('Invalid API key.');
  if (record.revokedAt) throw new UnauthorizedError('Invalid API key: this key has been revoked.');
  const account = record.account ?? (await store.getAccount(record.accountId));
  if (!account) throw new UnauthorizedError('Invalid API key.');
  return account;
}
