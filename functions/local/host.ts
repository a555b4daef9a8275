import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authenticateApiKey, createAccount, createApiKey } from '../accounts/use-cases';
import { localDynamoClient } from '../aws/dynamo/client';
import { SERVICE_TABLE } from '../aws/dynamo/table-definitions';
import type { AccountStore } from '../core/accounts';
import { routes } from '../routes';
import { configureServices, createDynamoServices, type Services } from '../services';
import { ensureTables, startDynalite } from './dynalite';
import { startHttpServer } from './http-server';
import { ensureWarehouse, type Warehouse } from './warehouse';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const LOCAL_ACCOUNT_HANDLE = 'local';

export interface LocalHostOptions {
  dataDir: string;
  port?: number;
  scale?: number;
  seed?: number;
  log?: (message: string) => void;
}

export interface LocalHost {
  baseUrl: string;
  apiKey: string;
  accountId: string;
  dynamoEndpoint: string;
  warehouse: Warehouse;
  services: Services;
  close(): Promise<void>;
}

interface DevKeyFile {
  accountId: string;
  apiKey: string;
}

/**
 * Boots the whole service in this process on its local stand-ins: the DuckDB warehouse (built on
 * first start), dynalite on disk, and the HTTP server that calls the same Lambda handlers as API
 * Gateway. Everything persists under `dataDir`.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const warehouse = await ensureWarehouse({
    dataDir,
    scale: options.scale,
    seed: options.seed,
    log: options.log,
  });

  const dynamo = await startDynalite({ path: join(dataDir, 'dynamodb') });
  const client = localDynamoClient(dynamo.endpoint);
  await ensureTables(client.client);
  process.env[SERVICE_TABLE.envVar] = SERVICE_TABLE.localName;
  process.env.SERVICE_RUNTIME = 'local';
  const services = createDynamoServices(client.doc, SERVICE_TABLE.localName);
  configureServices(services);

  // The manifest holds the statistics measured when the data was built; writing them on every
  // start keeps the catalog right even if the DynamoDB files were removed.
  await services.catalogStats.putStats(warehouse.manifest.stats);
  services.catalog.invalidate();

  const devKey = await ensureDevApiKey(services.accounts, join(dataDir, 'dev-api-key.json'));
  const http = await startHttpServer({ routes, repoRoot: REPO_ROOT, port: options.port });
  const hostFile = join(dataDir, 'local-host.json');
  await writeFile(
    hostFile,
    JSON.stringify({ pid: process.pid, baseUrl: http.baseUrl, dynamoEndpoint: dynamo.endpoint }),
  );

  let closing: Promise<void> | undefined;
  return {
    baseUrl: http.baseUrl,
    apiKey: devKey.apiKey,
    accountId: devKey.accountId,
    dynamoEndpoint: dynamo.endpoint,
    warehouse,
    services,
    close: () => {
      // Stop taking requests first, then close the stores they write to.
      closing ??= (async () => {
        await http.close();
        await dynamo.close();
        client.client.destroy();
        await rm(hostFile, { force: true });
      })();
      return closing;
    },
  };
}

/**
 * The local account's key. Keys are stored hashed, so the plaintext of the dev key is kept in a
 * local file (mode 600) to print the same key on every start; a revoked or lost key is replaced.
 */
async function ensureDevApiKey(accounts: AccountStore, path: string): Promise<DevKeyFile> {
  const saved = await readJson<DevKeyFile>(path);
  if (saved) {
    try {
      await authenticateApiKey(accounts, saved.apiKey);
      return saved;
    } catch {
      // revoked or unknown: make a new one below
    }
  }
  const account =
    (await accounts.getAccountByHandle(LOCAL_ACCOUNT_HANDLE)) ??
    (await createAccount(accounts, { handle: LOCAL_ACCOUNT_HANDLE, name: 'Local developer' }));
  const created = await createApiKey(accounts, account.accountId, 'local dev key');
  const devKey = { accountId: account.accountId, apiKey: created.apiKey };
  await writeFile(path, `${JSON.stringify(devKey, null, 2)}\n`, { mode: 0o600 });
  return devKey;
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
