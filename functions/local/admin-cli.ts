import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createAccount, createApiKey, revokeApiKey } from '../accounts/use-cases';
import { DynamoAccountCounters } from '../aws/dynamo/account-limits-store';
import { DynamoAccountStore } from '../aws/dynamo/account-store';
import { createDocumentClient, localDynamoClient } from '../aws/dynamo/client';
import { DynamoOAuthStore } from '../aws/dynamo/oauth-store';
import { SERVICE_TABLE } from '../aws/dynamo/table-definitions';
import { SecretsManagerSigningKeyStore } from '../aws/secrets-manager-signing-keys';
import type { Account, AccountStore } from '../core/accounts';
import type { UsageStore } from '../core/credits';
import { ServiceError } from '../core/errors';
import type { OAuthStore } from '../core/oauth';
import { type PerMinute, parsePerMinute, type RateClass, type RateLimitSettings } from '../core/rate-limits';
import { type SigningKeyStore, SigningKeys } from '../oauth/signing-keys';
import { revokeClientAccess, setLogin } from '../oauth/use-cases';
import { ensureTables, startDynalite } from './dynalite';
import { recordAccountLimit, recordRevocation } from './key-revocations';
import { FileSigningKeyStore } from './signing-key-file';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-account --handle <handle> [--name <name>]   create an account (prints its id)
  create-key --account <id|handle> [--name <name>]   create an API key (shown once)
  revoke-key <key id | osk_ prefix>                  revoke an API key
  list-accounts                                      list accounts
  list-keys --account <id|handle>                    list an account's keys (prefixes only)
  set-credit-limit --account <id|handle> --credits <n>   credit limit per billing period
  set-rate-limit --account <id|handle> [--reads <n>] [--writes <n>]
                                                     requests per minute (n, unlimited or default)
  set-login --account <id|handle> --email <email>    set the OAuth sign-in (password read from stdin)
  list-clients --account <id|handle>                 OAuth clients the account allowed, with their grants
  revoke-client --account <id|handle> --client <client_id>   end a client's access (refresh and access tokens)
  delete-client --client <client_id>                 delete a registered client (it must register again)
  rotate-signing-key [--secret-id <id>]              start signing access tokens with a new key

Where the data is:
  default          the local data dir (.data or --data-dir); uses the running local host if any
  --aws --table-name <name>   a deployed stack's DynamoDB table (AWS credentials from the environment)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    handle: { type: 'string' },
    name: { type: 'string' },
    account: { type: 'string' },
    credits: { type: 'string' },
    reads: { type: 'string' },
    writes: { type: 'string' },
    email: { type: 'string' },
    client: { type: 'string' },
    'secret-id': { type: 'string' },
    'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
    aws: { type: 'boolean', default: false },
    'table-name': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const [command, ...rest] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(command || values.help ? 0 : 2);
}

const { store, counters, oauth, close } = await openStore();
try {
  await run(store, counters, oauth);
} catch (error) {
  if (error instanceof ServiceError) {
    console.error(`error: ${error.message}`);
    process.exitCode = 1;
  } else throw error;
} finally {
  await close();
}

async function run(
  accounts: AccountStore,
  counters: UsageStore & RateLimitSettings,
  oauth: OAuthStore,
): Promise<void> {
  switch (command) {
    case 'create-account': {
      const account = await createAccount(accounts, { handle: required('handle'), name: values.name });
      console.log(JSON.stringify(account, null, 2));
      return;
    }
    case 'create-key': {
      const account = await findAccount(accounts, required('account'));
      const created = await createApiKey(accounts, account.accountId, values.name ?? 'default');
      console.log(`API key for ${account.handle} (shown once; store it now):\n${created.apiKey}`);
      return;
    }
    case 'revoke-key': {
      const keyId = rest[0];
      if (!keyId) fail('revoke-key needs a key id or osk_ prefix');
      const record = await revokeApiKey(accounts, keyId);
      // The running local host's key cache sees this at once (functions/local/key-revocations.ts).
      if (!values.aws) await recordRevocation(resolve(values['data-dir']!), record.keyId, record.revokedAt!);
      console.log(`Revoked ${record.prefix} (${record.name}) at ${record.revokedAt}.`);
      return;
    }
    case 'list-accounts': {
      for (const account of await accounts.listAccounts()) {
        console.log(`${account.accountId}  ${account.handle}  ${account.name}  ${account.createdAt}`);
      }
      return;
    }
    case 'list-keys': {
      const account = await findAccount(accounts, required('account'));
      for (const key of await accounts.listApiKeys(account.accountId)) {
        console.log(
          `${key.prefix}  ${key.name}  created ${key.createdAt}${key.revokedAt ? `  REVOKED ${key.revokedAt}` : ''}`,
        );
      }
      return;
    }
    case 'set-credit-limit': {
      const account = await findAccount(accounts, required('account'));
      const credits = Number(values.credits);
      if (!values.credits || !Number.isFinite(credits) || credits < 0)
        fail('--credits must be a number >= 0');
      await counters.setCreditLimit(account.accountId, credits);
      // The running local host's credit standings see this at once (functions/local/key-revocations.ts).
      if (!values.aws)
        await recordAccountLimit(resolve(values['data-dir']!), account.accountId, `credits ${credits}`);
      console.log(`Credit limit of ${account.handle}: ${credits} credits per billing period.`);
      return;
    }
    case 'set-rate-limit': {
      const account = await findAccount(accounts, required('account'));
      const limits: Partial<Record<RateClass, PerMinute | 'default'>> = {};
      for (const [option, rateClass] of [
        ['reads', 'read'],
        ['writes', 'write'],
      ] as const) {
        const given = values[option];
        if (given === undefined) continue;
        const limit = parsePerMinute(given);
        if (limit === undefined)
          fail(`--${option} must be a whole number above 0, "unlimited" or "default"; got "${given}"`);
        limits[rateClass] = limit;
      }
      if (!Object.keys(limits).length) fail('set-rate-limit needs --reads, --writes or both');
      await counters.setRateLimits(account.accountId, limits);
      // The running local host sees this at once; a deployed stack within a minute.
      if (!values.aws) {
        const change = Object.entries(limits).map(([rateClass, limit]) => `${rateClass}-rate ${limit}`);
        await recordAccountLimit(resolve(values['data-dir']!), account.accountId, change.join(' '));
      }
      const current = await counters.getRateLimits(account.accountId);
      const shown = (rateClass: RateClass) =>
        current[rateClass] === undefined ? 'the default' : `${current[rateClass]}`;
      console.log(
        `Rate limits of ${account.handle}: reads ${shown('read')}, writes ${shown('write')} per minute.`,
      );
      return;
    }
    case 'set-login': {
      const account = await findAccount(accounts, required('account'));
      const password = (await readStdin()).replace(/\r?\n$/, '');
      const email = await setLogin({ oauth }, account.accountId, required('email'), password);
      console.log(`${email} now signs in to ${account.handle}.`);
      return;
    }
    case 'list-clients': {
      const account = await findAccount(accounts, required('account'));
      const families = await oauth.listFamilies(account.accountId);
      for (const consent of await oauth.listConsents(account.accountId)) {
        const active = families.filter((f) => f.clientId === consent.clientId && f.revokedAt === undefined);
        const client = await oauth.getClient(consent.clientId);
        console.log(
          `${consent.clientId}  ${client?.clientName ?? '(metadata document)'}  allowed ${consent.grantedAt}  active grants ${active.length}`,
        );
      }
      return;
    }
    case 'revoke-client': {
      const account = await findAccount(accounts, required('account'));
      const clientId = required('client');
      const revoked = await revokeClientAccess({ oauth }, account.accountId, clientId);
      console.log(`Revoked ${clientId} for ${account.handle}: ${revoked} active grant(s) ended.`);
      return;
    }
    case 'delete-client': {
      const clientId = required('client');
      await oauth.deleteClient(clientId, new Date().toISOString());
      console.log(`Deleted client ${clientId}; its token requests now get invalid_client.`);
      return;
    }
    case 'rotate-signing-key': {
      const keys = new SigningKeys(await signingKeyStore());
      const set = await keys.rotate();
      console.log(`Signing with ${set.keys[0]!.kid}; published: ${set.keys.map((k) => k.kid).join(', ')}.`);
      return;
    }
    default:
      fail(`unknown command "${command}"\n\n${USAGE}`);
  }
}

async function findAccount(accounts: AccountStore, idOrHandle: string): Promise<Account> {
  const account = (await accounts.getAccount(idOrHandle)) ?? (await accounts.getAccountByHandle(idOrHandle));
  if (!account) fail(`no account with id or handle "${idOrHandle}"`);
  return account;
}

function required(name: 'handle' | 'account' | 'credits' | 'email' | 'client'): string {
  const value = values[name];
  if (!value) fail(`--${name} is required`);
  return value;
}

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(2);
}

/**
 * dynalite's on-disk store can be open in one process only, so when the local host runs, the
 * CLI talks to that host's dynalite endpoint instead of opening the files itself.
 */
async function openStore(): Promise<{
  store: AccountStore;
  counters: UsageStore & RateLimitSettings;
  oauth: OAuthStore;
  close: () => Promise<void>;
}> {
  const stores = (doc: DynamoDBDocumentClient, table: string) => ({
    store: new DynamoAccountStore(doc, table),
    counters: new DynamoAccountCounters(doc, table),
    oauth: new DynamoOAuthStore(doc, table),
  });
  if (values.aws) {
    const tableName = values['table-name'];
    if (!tableName) fail('--aws needs --table-name (the stack output ServiceTableName)');
    return { ...stores(createDocumentClient(), tableName), close: async () => {} };
  }
  const dataDir = resolve(values['data-dir']!);
  const running = await runningHost(dataDir);
  if (running) {
    const { doc } = localDynamoClient(running.dynamoEndpoint);
    return { ...stores(doc, SERVICE_TABLE.localName), close: async () => {} };
  }
  const dynamo = await startDynalite({ path: join(dataDir, 'dynamodb') });
  const { client, doc } = localDynamoClient(dynamo.endpoint);
  await ensureTables(client);
  return {
    ...stores(doc, SERVICE_TABLE.localName),
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) console.error('Password (then Enter, Ctrl-D):');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The local key file, or with --aws the Secrets Manager secret (--secret-id, the stack output). */
async function signingKeyStore(): Promise<SigningKeyStore> {
  if (values.aws) {
    const secretId = values['secret-id'];
    if (!secretId) fail('--aws rotate-signing-key needs --secret-id (the stack output SigningKeysSecretArn)');
    const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    return new SecretsManagerSigningKeyStore(new SecretsManagerClient({}), secretId);
  }
  return new FileSigningKeyStore(join(resolve(values['data-dir']!), 'oauth-signing-keys.json'));
}

async function runningHost(dataDir: string): Promise<{ dynamoEndpoint: string } | undefined> {
  try {
    const info = JSON.parse(await readFile(join(dataDir, 'local-host.json'), 'utf8')) as {
      pid: number;
      dynamoEndpoint: string;
    };
    process.kill(info.pid, 0); // throws when no such process
    return info;
  } catch {
    return undefined;
  }
}
