import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../functions/local/host';
import { RUNAWAY_SQL } from '../support/runaway-sql';
import { prepareDataDir } from '../support/test-host';

const TSX = join(REPO_ROOT, 'node_modules/.bin/tsx');
const run = promisify(execFile);

interface Started {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  output: () => string;
}

/** Runs the real `npm start` entry point as a child process and waits for its banner. */
async function startService(dataDir: string): Promise<Started> {
  const child = spawn(TSX, ['functions/local/main.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  return {
    child,
    baseUrl: /Base URL : (\S+)/.exec(output)![1]!,
    apiKey: /API key {2}: (\S+)/.exec(output)![1]!,
    output: () => output,
  };
}

async function stopWithCtrlC(service: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGINT');
  return exited;
}

/** Child processes of a process (the host's engine processes), from /proc. */
async function childPids(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return children.split(' ').filter(Boolean).map(Number);
}

/** Running, not gone or a zombie (an orphan killed here may wait for its reaper). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const admin = (dataDir: string, ...args: string[]) =>
  run(TSX, ['functions/local/admin-cli.ts', '--data-dir', dataDir, ...args], { cwd: REPO_ROOT });

describe('npm start: the local host as a process', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await prepareDataDir();
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('serves the API, shuts down cleanly on Ctrl-C, and keeps key and data across restarts', async () => {
    const first = await startService(dataDir);
    const search = await fetch(`${first.baseUrl}/v1/datasets/search`, {
      method: 'POST',
      headers: { 'x-service-api-key': first.apiKey },
      body: '{"query":"swap"}',
    });
    expect(search.status).toBe(200);

    // The admin CLI works while the host runs (it talks to the host's dynalite endpoint).
    await admin(dataDir, 'create-account', '--handle', 'analyst_one');
    const created = await admin(dataDir, 'create-key', '--account', 'analyst_one', '--name', 'ci');
    const analystKey = /osk_\S+/.exec(created.stdout)![0];
    const asAnalyst = await fetch(`${first.baseUrl}/v1/datasets?limit=1`, {
      headers: { 'x-service-api-key': analystKey },
    });
    expect(asAnalyst.status).toBe(200);

    // A credit limit the CLI sets holds at once, though the host keeps credit standings in memory.
    const execute = () =>
      fetch(`${first.baseUrl}/v1/sql/execute`, {
        method: 'POST',
        headers: { 'x-service-api-key': analystKey },
        body: JSON.stringify({ sql: 'select 1 as x' }),
      });
    expect((await execute()).status).toBe(200);
    await admin(dataDir, 'set-credit-limit', '--account', 'analyst_one', '--credits', '0');
    expect((await execute()).status).toBe(402);
    await admin(dataDir, 'set-credit-limit', '--account', 'analyst_one', '--credits', '100');
    expect((await execute()).status).toBe(200);

    // So does a rate limit: of two writes in one minute, the second is over a budget of one
    // (three tries, so that one falls in the same minute as the one before it).
    await admin(dataDir, 'set-rate-limit', '--account', 'analyst_one', '--writes', '1');
    let limited = await execute();
    for (let tries = 1; limited.status !== 429 && tries < 3; tries++) limited = await execute();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    await expect(
      admin(dataDir, 'set-rate-limit', '--account', 'analyst_one', '--writes', '0'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining(
        '--writes must be a whole number above 0, "unlimited" or "default"; got "0"',
      ),
    });
    const reset = await admin(dataDir, 'set-rate-limit', '--account', 'analyst_one', '--writes', 'default');
    expect(reset.stdout).toContain(
      'Rate limits of analyst_one: reads the default, writes the default per minute.',
    );
    expect((await execute()).status).toBe(200);

    expect(await stopWithCtrlC(first)).toBe(0);
    expect(first.output()).toContain('Stopped cleanly.');

    // Stopped: the CLI opens the on-disk store itself.
    await admin(dataDir, 'revoke-key', analystKey.slice(0, 20));

    const second = await startService(dataDir);
    expect(second.apiKey).toBe(first.apiKey);
    const revoked = await fetch(`${second.baseUrl}/v1/datasets?limit=1`, {
      headers: { 'x-service-api-key': analystKey },
    });
    expect(revoked.status).toBe(401);
    const devKey = await fetch(`${second.baseUrl}/v1/datasets?limit=1`, {
      headers: { 'x-service-api-key': second.apiKey },
    });
    expect(devKey.status).toBe(200);
    const accounts = await run(
      TSX,
      ['functions/local/admin-cli.ts', '--data-dir', dataDir, 'list-accounts'],
      {
        cwd: REPO_ROOT,
      },
    );
    expect(accounts.stdout).toContain('analyst_one');
    expect(await stopWithCtrlC(second)).toBe(0);
  }, 120_000);

  it('after a crash (SIGKILL mid-query) the next start ends the orphaned execution FAILED with the reason', async () => {
    const first = await startService(dataDir);
    const headers = { 'x-service-api-key': first.apiKey };
    const submitted = await fetch(`${first.baseUrl}/v1/sql/execute`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        sql: RUNAWAY_SQL,
      }),
    });
    const { execution_id: id } = (await submitted.json()) as { execution_id: string };
    for (let i = 0; i < 200; i++) {
      const status = (await (
        await fetch(`${first.baseUrl}/v1/execution/${id}/status?max_wait_ms=0`, { headers })
      ).json()) as { state: string };
      if (status.state === 'QUERY_STATE_EXECUTING') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // tsx runs the host in a child process: kill that one (its pid is in local-host.json), as a crash would.
    const { pid } = JSON.parse(await readFile(join(dataDir, 'local-host.json'), 'utf8')) as { pid: number };
    const engineProcesses = await childPids(pid);
    expect(engineProcesses.length).toBeGreaterThan(0);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    process.kill(pid, 'SIGKILL');
    await exited;
    // Its engine processes (one was running the query) die with it instead of running on.
    await expect.poll(() => engineProcesses.filter(isAlive), { timeout: 10_000 }).toEqual([]);

    // What killed runs can leave: half-written results (staged, or beside the results), spill files.
    const results = join(dataDir, 'results');
    const leftovers = [
      join(results, '.staging', 'k-medium', `${id}.parquet.partial`),
      join(results, `${id}.parquet.partial`),
      join(results, '.spill', 'k-medium-1', 'duckdb_temp_block-0.block'),
    ];
    for (const path of leftovers) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, 'half');
    }
    const staged = async () =>
      (await readdir(results, { recursive: true })).filter((name) => /partial|\.spill|\.staging/.test(name));
    expect((await staged()).length).toBeGreaterThanOrEqual(3);

    const second = await startService(dataDir);
    expect(second.output()).toMatch(/Recovered executions: 1 marked failed/);
    // The next start removes them.
    expect(await staged()).toEqual([]);
    const status = (await (
      await fetch(`${second.baseUrl}/v1/execution/${id}/status`, { headers })
    ).json()) as {
      state: string;
      error: { message: string };
    };
    expect(status.state).toBe('QUERY_STATE_FAILED');
    expect(status.error.message).toMatch(/restarted while this execution was running/);
    expect(await stopWithCtrlC(second)).toBe(0);
  }, 120_000);
});
