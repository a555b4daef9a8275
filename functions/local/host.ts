import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authenticateApiKey, createAccount, createApiKey } from '../accounts/use-cases';
import { localDynamoClient } from '../aws/dynamo/client';
import { SERVICE_TABLE } from '../aws/dynamo/table-definitions';
import type { AccountStore } from '../core/accounts';
import { DuneSqlTableReferenceParser } from '../dunesql/table-references';
import { type ExecutionConfig, executionConfigFromEnv } from '../executions/config';
import { SigningKeys } from '../oauth/signing-keys';
import { setLogin } from '../oauth/use-cases';
import { routes } from '../routes';
import { createNodeRunner } from '../runner/node-runner';
import { failInterrupted, heldByEngine, recoverAfterRestart } from '../runner/recovery';
import { configureServices, createServices, type Services } from '../services';
import { ensureTables, startDynalite } from './dynalite';
import { DuckDbQueryEngine, type DuckDbQueryEngineOptions } from './engine/query-engine';
import { removeRunLeftovers } from './engine/result-files';
import { DuckDbResultStore } from './engine/result-store';
import { startHttpServer } from './http-server';
import { accountLimitStamp, revocationStamp } from './key-revocations';
import { PollingDependencyGate } from './polling-gate';
import { RefreshScheduler } from './refresh-scheduler';
import { InMemoryRequestCounter } from './request-counter';
import { RetiredUploadSweep } from './retired-uploads';
import { FileSigningKeyStore } from './signing-key-file';
import { LocalSlotGate } from './slot-gate';
import { LOCAL_RUNNER_ARN, LocalStepFunctions } from './step-functions';
import { LocalUploadFiles } from './upload-files';
import { ensureWarehouse, type Warehouse } from './warehouse';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const LOCAL_ACCOUNT_HANDLE = 'local';

export interface LocalHostOptions {
  dataDir: string;
  port?: number;
  scale?: number;
  seed?: number;
  log?: (message: string) => void;
  /** Overrides of the execution limits (tests use short timeouts and small limits). */
  execution?: Partial<ExecutionConfig>;
  /** How long local Wait states (queue polls) really wait. */
  waitMillis?: number;
  /**
   * How often an execution waiting for a slot tries again unwoken (default 250 ms); tests set it
   * high to prove every wake-up happens.
   */
  slotRecheckMillis?: number;
  /** Engine settings (tier limits, engine processes); tests use small ones. */
  engine?: Partial<
    Omit<DuckDbQueryEngineOptions, 'warehousePath' | 'resultsDir' | 'rawDuckDbForEngineTests'>
  >;
}

export interface LocalHost {
  baseUrl: string;
  apiKey: string;
  /** The dev account's browser login (OAuth sign-in page), made at first start. */
  login: DevLogin;
  accountId: string;
  dynamoEndpoint: string;
  warehouse: Warehouse;
  services: Services;
  scheduler: RefreshScheduler;
  close(): Promise<void>;
}

export interface DevLogin {
  email: string;
  password: string;
}

interface DevKeyFile {
  accountId: string;
  apiKey: string;
}

/**
 * Boots the whole service in this process on its local stand-ins: the DuckDB warehouse (built on
 * first start), dynalite on disk (on a worker thread), and the HTTP server that calls the same
 * Lambda handlers as API Gateway. Everything persists under `dataDir`.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const hostFile = join(dataDir, 'local-host.json');
  const other = await readJson<{ pid: number }>(hostFile);
  if (other && other.pid !== process.pid && isAlive(other.pid)) {
    throw new Error(
      `Another local host (pid ${other.pid}) is using ${dataDir}; stop it first or use --data-dir.`,
    );
  }
  const warehouse = await ensureWarehouse({
    dataDir,
    scale: options.scale,
    seed: options.seed,
    log: options.log,
  });

  const dynamo = await startDynalite({ path: join(dataDir, 'dynamodb') });
  const client = localDynamoClient(dynamo.endpoint, dynamo.requestHandler);
  await ensureTables(client.client);
  process.env[SERVICE_TABLE.envVar] = SERVICE_TABLE.localName;
  process.env.SERVICE_RUNTIME = 'local';
  const fromEnv = executionConfigFromEnv(process.env, LOCAL_RUNNER_ARN);
  // A receiver on this machine (http://localhost:…) is what a local webhook usually is.
  const webhooks = { ...fromEnv.webhooks, allowInsecureUrls: true };
  const config = { ...fromEnv, webhooks, ...options.execution };
  const resultsDir = join(dataDir, 'results');
  await mkdir(resultsDir, { recursive: true });
  // Only this host uses the data dir (checked above) and its engine has run nothing yet: what a
  // crash left half-written is garbage.
  await removeRunLeftovers(resultsDir);
  const engine = new DuckDbQueryEngine({
    warehousePath: warehouse.path,
    resultsDir,
    ...options.engine,
    pool: {
      size: numberFromEnv('ENGINE_CONCURRENCY'),
      // Engine work yields the CPU to the request path (status reads, cancels).
      niceness: numberFromEnv('ENGINE_NICENESS') ?? 10,
      ...options.engine?.pool,
    },
  });
  // The first query should not wait for an engine process to start (and load the DuneSQL
  // translator): it warms up while the rest of the host starts.
  engine.pool.warm(1);
  const results = new DuckDbResultStore({ resultsDir });
  // The orchestrator needs the runner and the runner needs the services: bind lazily.
  let runner: ReturnType<typeof createNodeRunner> | undefined;
  const dependencyGate = new PollingDependencyGate();
  const slotGate = new LocalSlotGate(options.slotRecheckMillis);
  const orchestrator = new LocalStepFunctions(() => runner!, {
    waitMillis: options.waitMillis ?? 100,
    // The DuckDB engine's status read waits for the run to change (waitForChange): no extra pause.
    queryPollWaitMillis: 0,
  });
  const services = createServices(
    client.doc,
    SERVICE_TABLE.localName,
    {
      engine,
      results,
      orchestrator,
      dependencyGate,
      slotGate,
      // This process answers every request: its counts in memory are the whole count.
      requestCounter: new InMemoryRequestCounter(),
      sqlParser: new DuneSqlTableReferenceParser(),
      // The local RefreshScheduler reads schedules from the views themselves.
      schedules: { sync: async () => {}, remove: async () => {} },
      config,
      signingKeys: new SigningKeys(new FileSigningKeyStore(join(dataDir, 'oauth-signing-keys.json'))),
      uploadFiles: new LocalUploadFiles(resultsDir),
    },
    // One process writes every record here: execution and pipeline reads of what it wrote are
    // served from memory.
    {
      apiKeyRevocations: revocationStamp(dataDir),
      soleWriter: true,
      accountLimitChanges: accountLimitStamp(dataDir),
    },
  );
  runner = createNodeRunner(services);
  configureServices(services);
  const recovered = await recoverAfterRestart(services);
  if (recovered.failed || recovered.resumed) {
    options.log?.(
      `Recovered executions: ${recovered.failed} marked failed (interrupted), ${recovered.resumed} resumed.`,
    );
  }
  if (recovered.pipelines)
    options.log?.(`Recovered pipelines: ${recovered.pipelines} interrupted runs marked failed.`);
  const scheduler = new RefreshScheduler(services);
  scheduler.start();
  const retiredUploads = new RetiredUploadSweep(services, options.log);
  retiredUploads.start();

  // The manifest holds the statistics measured when the data was built; writing them on every
  // start keeps the catalog right even if the DynamoDB files were removed.
  await services.catalogStats.putStats(warehouse.manifest.stats);
  services.catalog.invalidate();

  const devKey = await ensureDevApiKey(services.accounts, join(dataDir, 'dev-api-key.json'));
  const login = await ensureDevLogin(services, devKey.accountId, join(dataDir, 'dev-login.json'));
  const http = await startHttpServer({ routes, repoRoot: REPO_ROOT, port: options.port });
  const restoreBaseUrls = useOwnBaseUrls(http.baseUrl);
  await writeFile(
    hostFile,
    JSON.stringify({ pid: process.pid, baseUrl: http.baseUrl, dynamoEndpoint: dynamo.endpoint }),
  );

  let closing: Promise<void> | undefined;
  return {
    baseUrl: http.baseUrl,
    apiKey: devKey.apiKey,
    login,
    accountId: devKey.accountId,
    dynamoEndpoint: dynamo.endpoint,
    warehouse,
    services,
    scheduler,
    close: () => {
      // Stop taking requests first, then close the stores they write to.
      closing ??= (async () => {
        await http.close();
        restoreBaseUrls();
        await scheduler.stop();
        await retiredUploads.stop();
        // No workflow may take its next step (e.g. start a pipeline's next node) once shutdown began.
        orchestrator.abortAll();
        dependencyGate.close();
        slotGate.close();
        await failInterruptedExecutions(services);
        // Stopping the engine ends the runs in flight; their task handlers then record the outcome
        // (a no-op for runs already failed above), and must be done before the store closes.
        await engine.close();
        await orchestrator.close();
        await results.close();
        // Drop the client's keep-alive sockets first: dynalite's close waits for every connection.
        client.client.destroy();
        await dynamo.close();
        await rm(hostFile, { force: true });
      })();
      return closing;
    },
  };
}

/**
 * On shutdown, executions the engine held end FAILED with the reason; those waiting for a slot
 * resume at next start.
 */
async function failInterruptedExecutions(services: Services): Promise<void> {
  for (const execution of await services.executions.listActive()) {
    if (heldByEngine(execution)) await failInterrupted(services, execution, 'The local host shut down');
  }
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

/**
 * The local account's sign-in for the OAuth login page: made at first start with a random
 * password, kept (like the dev key) in a mode-600 file so every start prints the same one.
 */
async function ensureDevLogin(services: Services, accountId: string, path: string): Promise<DevLogin> {
  const saved = await readJson<DevLogin>(path);
  const stored = saved ? await services.oauth.getLogin(saved.email) : undefined;
  if (saved && stored?.accountId === accountId) return saved;
  const login = { email: DEV_LOGIN_EMAIL, password: randomBytes(12).toString('base64url') };
  await setLogin(services, accountId, login.email, login.password);
  await writeFile(path, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  return login;
}

export const DEV_LOGIN_EMAIL = 'dev@localhost.localdomain';

/** A whole number from the environment, or undefined when unset. */
function numberFromEnv(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a whole number, got "${value}".`);
  return parsed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * This host's address is the service's public base URL (the issuer and every token's audience,
 * whatever `Host` a request names), with `localhost` as an alias of `127.0.0.1`: a token got
 * through one works through the other. A `PUBLIC_BASE_URL` already set (a tunnel in front) stays
 * the public one, with this host's addresses as aliases. Returns what undoes it (at close).
 */
function useOwnBaseUrls(own: string): () => void {
  const saved = { url: process.env.PUBLIC_BASE_URL, aliases: process.env.PUBLIC_BASE_URL_ALIASES };
  process.env.PUBLIC_BASE_URL = saved.url || own;
  process.env.PUBLIC_BASE_URL_ALIASES = [saved.aliases, own, own.replace('//127.0.0.1:', '//localhost:')]
    .filter(Boolean)
    .join(',');
  return () => {
    for (const [name, value] of [
      ['PUBLIC_BASE_URL', saved.url],
      ['PUBLIC_BASE_URL_ALIASES', saved.aliases],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
