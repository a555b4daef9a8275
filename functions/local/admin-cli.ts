import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createAccount, createApiKey, revokeApiKey } from '../accounts/use-cases';
import { DynamoAccountCounters } from '../aws/dynamo/account-limits-store';
import { DynamoAccountStore } from '../aws/dynamo/account-store';
import { createDocumentClient, localDynamoClient } from '../aws/dynamo/client';
import { SERVICE_TABLE } from '../aws/dynamo/table-definitions';
import type { Account, AccountStore } from '../core/accounts';
import type { UsageStore } from '../core/credits';
import { ServiceError } from '../core/errors';
import { ensureTables, startDynalite } from './dynalite';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-account --handle <handle> [--name <name>]   create an account (prints its id)
  create-key --account <id|handle> [--name <name>]   create an API key (shown once)
  revoke-key <key id | osk_ prefix>                  revoke an API key
  list-accounts                                      list accounts
  list-keys --account <id|handle>                    list an account's keys (prefixes only)
  set-credit-limit --account <id|handle> --credits <n>   credit limit per billing period

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

const { store, counters, close } = await openStore();
try {
  await run(store, counters);
} catch (error) {
  if (error instanceof ServiceError) {
    console.error(`error: ${error.message}`);
    process.exitCode = 1;
  } else throw error;
} finally {
  await close();
}

async function run(accounts: AccountStore, counters: UsageStore): Promise<void> {
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
      console.log(`Credit limit of ${account.handle}: ${credits} credits per billing period.`);
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

function required(name: 'handle' | 'account' | 'credits'): string {
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
  counters: UsageStore;
  close: () => Promise<void>;
}> {
  const stores = (doc: DynamoDBDocumentClient, table: string) => ({
    store: new DynamoAccountStore(doc, table),
    counters: new DynamoAccountCounters(doc, table),
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
