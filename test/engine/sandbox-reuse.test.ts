import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { failureOf, oneProcessEngine, runRequest } from './fixture';

/**
 * Runs of one account and tier share a reusable sandbox (sandbox.ts, ReusableSandbox), which keeps
 * DuckDB's cache warm between them; nothing a run does may reach the next one (its views
 * included), and runs of other accounts, other tiers and runs after a failure never share one.
 *
 * Which sandbox a run had is read from `txid_current()`: DuckDB numbers the transactions of an
 * instance, so a new sandbox starts at the same number every time, and a reused one goes on counting.
 */
// txid_current() and setseed() are DuckDB's, not DuneSQL: allowed here to look inside the sandbox.
const setup = oneProcessEngine({ duckDbFunctionsForEngineTests: true });

/** Runs the SQL and returns its first row. */
const firstRow = async (sql: string, overrides: Parameters<typeof runRequest>[1] = {}) =>
  (await setup.run(sql, overrides, 1)).rows[0]!;

const transaction = async (accountId: string, tier: 'medium' | 'large' = 'medium') =>
  Number((await firstRow('SELECT txid_current() AS t', { accountId, tier })).t);

// The engine keeps a statement's columns after its first run (statement-cache.ts), which saves
// the transactions of describing it: one run first, so every new sandbox starts at one number.
beforeAll(() => transaction('warm-up'));

describe('reusable sandboxes', () => {
  it('serve the next run of the same account and tier, and only those', async () => {
    const fresh = await transaction('alice');
    expect(await transaction('alice')).toBeGreaterThan(fresh);
    expect(await transaction('alice')).toBeGreaterThan(fresh);
    // Another account, or another tier, starts a sandbox of its own.
    expect(await transaction('bob')).toBe(fresh);
    expect(await transaction('bob', 'large')).toBe(fresh);
    expect(await transaction('alice')).toBe(fresh);
  });

  it('leave nothing of a run to the next: the random seed, staged files', async () => {
    await transaction('carol');
    // setseed() changes the connection's generator; a run on the same connection would draw this.
    const reference = await DuckDBInstance.create(':memory:');
    const connection = await reference.connect();
    await connection.run('SELECT setseed(0.5)');
    const seeded = (await connection.runAndReadAll('SELECT random()')).getRows()[0]![0];
    connection.closeSync();
    reference.closeSync();

    const before = await transaction('carol');
    await firstRow('SELECT setseed(0.5) AS s', { accountId: 'carol' });
    const next = await firstRow('SELECT random() AS r, txid_current() AS t', { accountId: 'carol' });
    expect(Number(next.t)).toBeGreaterThan(before); // the same sandbox…
    expect(next.r).not.toBe(seeded); // …on a connection of its own

    // Results are moved out of the staging directory, the only place the sandbox may write.
    const staging = join(setup.fixture.resultsDir, '.staging');
    for (const directory of await readdir(staging)) {
      expect(await readdir(join(staging, directory))).toEqual([]);
    }
  });

  it('are closed after a failed run', async () => {
    const fresh = await transaction('dave');
    expect(await transaction('dave')).toBeGreaterThan(fresh);
    const failed = await failureOf(
      setup.engine.run(runRequest("SELECT CAST('x' AS integer) AS n", { accountId: 'dave' })),
    );
    expect(failed.type).toBe('execution_error');
    expect(await transaction('dave')).toBe(fresh);
  });

  it('serve runs that read views, and the next run finds none of them', async () => {
    const fresh = await transaction('erin');
    const source = runRequest('SELECT 42 AS answer', { accountId: 'erin' });
    const { columns } = await setup.engine.run(source);
    const relations = [
      { catalog: 'mv', schema: 'erin', name: 'result_answer', executionId: source.executionId, columns },
    ];
    const sql = 'SELECT answer, txid_current() AS t FROM mv.erin.result_answer';
    const viaView = await firstRow(sql, { accountId: 'erin', relations });
    expect(viaView.answer).toBe(42);
    expect(Number(viaView.t)).toBeGreaterThan(fresh); // on the reused sandbox
    // Its view was attached for that run only: the next run on the same sandbox, not given the
    // view, cannot read it; nor are its files linked in the staging directory any more (removed
    // after its outcome was reported, before the next run starts).
    const failure = await failureOf(setup.engine.run(runRequest(sql, { accountId: 'erin' })));
    expect(failure.message).toMatch(
      /result_answer.*does not exist|does not exist.*result_answer|Catalog .*mv.* does not exist/i,
    );
    expect(failure.message).not.toMatch(/staging/);
    const staging = join(setup.fixture.resultsDir, '.staging');
    for (const directory of await readdir(staging)) {
      expect(await readdir(join(staging, directory))).toEqual([]);
    }
    // A second view run on a new sandbox reads the view again.
    expect((await firstRow(sql, { accountId: 'erin', relations })).answer).toBe(42);
  });
});
