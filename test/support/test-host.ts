import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import { type LocalHost, type LocalHostOptions, startLocalHost } from '../../functions/local/host';

/** A fresh data dir holding a copy of the run's sample warehouse (so no test rebuilds data). */
export async function prepareDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-test-'));
  const template = inject('warehouseTemplateDir');
  await copyFile(join(template, 'warehouse.duckdb'), join(dataDir, 'warehouse.duckdb'));
  await copyFile(join(template, 'warehouse.json'), join(dataDir, 'warehouse.json'));
  return dataDir;
}

export interface TestHost extends LocalHost {
  dataDir: string;
  /** fetch against the host with the dev key unless `apiKey: null` is passed. */
  call(path: string, init?: RequestInit & { apiKey?: string | null; json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

const TEST_RATE_LIMITS = { read: 100_000, write: 100_000 };

export async function startTestHost(
  dataDir?: string,
  options: Omit<LocalHostOptions, 'dataDir'> = {},
): Promise<TestHost> {
  const dir = dataDir ?? (await prepareDataDir());
  const host = await startLocalHost({
    dataDir: dir,
    port: 0,
    waitMillis: 20,
    ...options,
    // A test file polls one account far faster than a client would: every request is counted, but
    // only the rate-limit tests' own accounts (with limits of their own) are ever refused. Test
    // files register OAuth clients by the dozen from one address.
    execution: { rateLimits: TEST_RATE_LIMITS, oauthRegistrationsPerHour: 100_000, ...options.execution },
    // Tests run side by side on few CPUs: niced engine processes would crawl behind the other
    // test files' hosts. The load test sets the local host's niceness itself.
    engine: { ...options.engine, pool: { niceness: 0, ...options.engine?.pool } },
  });
  return {
    ...host,
    dataDir: dir,
    call(path, init = {}) {
      const { apiKey = host.apiKey, json, headers, ...rest } = init;
      return fetch(`${host.baseUrl}${path}`, {
        ...rest,
        headers: {
          ...(apiKey ? { 'x-service-api-key': apiKey } : {}),
          ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(headers as Record<string, string>),
        },
        ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? 'POST' } : {}),
      });
    },
    async stop() {
      await host.close();
      if (!dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Parsed JSON bodies: tests assert on their shape, so they are loosely typed on purpose. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
export type Json = any;

/** An API key of a second account, made for the test (another account must never see the first's data). */
export async function newAccountKey(host: TestHost, handle: string): Promise<string> {
  const account = await createAccount(host.services.accounts, { handle });
  return (await createApiKey(host.services.accounts, account.accountId)).apiKey;
}

export async function bodyOf(response: Response): Promise<Json> {
  return response.json();
}
