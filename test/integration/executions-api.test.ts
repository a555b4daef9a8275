import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditsFor } from '../../functions/core/credits';
import { RUNAWAY_SQL, submitSql, waitForStatus, waitUntilFinished } from '../support/executions';
import { bodyOf, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

describe('executions: asynchronous runs on the local workflow engine and sandboxed DuckDB', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost(undefined, {
      execution: { queryTimeoutMs: { medium: 3000, large: 3000 } },
    });
  });
  afterAll(() => host?.stop());

  it('runs a saved query with defaults and overrides, from PENDING to COMPLETED, with results', async () => {
    const created = await bodyOf(
      await host.call('/v1/query', {
        json: {
          name: 'trades by chain',
          query_sql:
            'select blockchain, count(*) as trades from dex.trades where blockchain = {{chain}} and block_time >= {{since}} group by 1',
          parameters: [
            { key: 'chain', type: 'enum', value: 'ethereum', enumOptions: ['ethereum', 'base', 'arbitrum'] },
            { key: 'since', type: 'datetime', value: '2020-01-01 00:00:00' },
          ],
        },
      }),
    );
    const submitted = await bodyOf(
      await host.call(`/v1/query/${created.query_id}/execute`, {
        json: { query_parameters: { chain: 'base' } },
      }),
    );
    expect(submitted).toEqual({
      execution_id: expect.stringMatching(/^01[0-9A-Z]{24}$/),
      state: 'QUERY_STATE_PENDING',
    });
    const status = await waitUntilFinished(host, submitted.execution_id);
    expect(status).toMatchObject({
      state: 'QUERY_STATE_COMPLETED',
      query_id: created.query_id,
      is_execution_finished: true,
      result_metadata: { column_names: ['blockchain', 'trades'], row_count: 1 },
    });
    expect(status.execution_cost_credits).toBeGreaterThan(0);
    // The time shown as executing is the engine time charged for, though the run's pointer moved
    // (a write) between its end and its COMPLETED.
    expect(status.execution_cost_credits).toBe(
      creditsFor(status.result_metadata.execution_time_millis, 'medium'),
    );
    for (const field of ['submitted_at', 'execution_started_at', 'execution_ended_at', 'expires_at']) {
      expect(Date.parse(status[field])).not.toBeNaN();
    }
    expect(status.cancelled_at).toBeUndefined();
    const results = await bodyOf(await host.call(`/v1/execution/${submitted.execution_id}/results`));
    expect(results.result.rows).toEqual([{ blockchain: 'base', trades: expect.any(Number) }]);
    const latest = await bodyOf(await host.call(`/v1/query/${created.query_id}/results`));
    expect(latest.execution_id).toBe(submitted.execution_id);

    const bad = await host.call(`/v1/query/${created.query_id}/execute`, {
      json: { query_parameters: { chain: 'solana' } },
    });
    expect(bad.status).toBe(400);
    expect((await bodyOf(bad)).error).toMatch(/Parameter "chain" must be one of/);
  });

  it('reports SQL errors as a FAILED execution with type and position, not an HTTP error', async () => {
    const id = await submitSql(host, 'select 1,\n  from_nowhere(');
    const status = await waitUntilFinished(host, id);
    expect(status.state).toBe('QUERY_STATE_FAILED');
    expect(status.error.type).toBe('syntax_error');
    expect(status.error.message).toContain(id);
    const missing = await waitUntilFinished(host, await submitSql(host, 'select * from dex.no_such_table'));
    expect(missing.error).toMatchObject({
      type: 'execution_error',
      message: expect.stringMatching(/no_such_table/),
    });
  });

  it('ends a runaway query FAILED with a timeout error', async () => {
    const status = await waitUntilFinished(host, await submitSql(host, RUNAWAY_SQL));
    expect(status.state).toBe('QUERY_STATE_FAILED');
    expect(status.error.type).toBe('timeout');
  });

  it('cancels a running query; a second cancel is a conflict', async () => {
    const id = await submitSql(host, RUNAWAY_SQL);
    await waitForStatus(host, id, (s) => s.state === 'QUERY_STATE_EXECUTING');
    const cancel = await host.call(`/v1/execution/${id}/cancel`, { method: 'POST' });
    expect(await bodyOf(cancel)).toEqual({ success: true });
    const status = await waitUntilFinished(host, id);
    expect(status.state).toBe('QUERY_STATE_CANCELLED');
    expect(Date.parse(status.cancelled_at)).not.toBeNaN();
    expect((await host.call(`/v1/execution/${id}/cancel`, { method: 'POST' })).status).toBe(409);
    // The state stays cancelled (a terminal state is never overwritten).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await waitUntilFinished(host, id)).state).toBe('QUERY_STATE_CANCELLED');
    // It pays for the engine time it used until the cancel (1 credit per second on medium), and
    // its started → ended window is that time.
    const charged = await waitForStatus(host, id, (s) => s.execution_cost_credits > 0);
    const window = Date.parse(charged.execution_ended_at) - Date.parse(charged.execution_started_at);
    expect(charged.execution_ended_at).toBe(charged.cancelled_at);
    expect(Date.parse(charged.execution_started_at)).toBeGreaterThanOrEqual(Date.parse(charged.submitted_at));
    expect(Math.abs(window - charged.execution_cost_credits * 1000)).toBeLessThanOrEqual(2);
  });

  it('charges a run cancelled as soon as it runs for no more than its time before the cancel', async () => {
    for (let round = 0; round < 2; round++) {
      const id = await submitSql(host, RUNAWAY_SQL);
      await waitForStatus(host, id, (s) => s.state === 'QUERY_STATE_EXECUTING');
      await host.call(`/v1/execution/${id}/cancel`, { method: 'POST' });
      const charged = await waitForStatus(host, id, (s) => s.execution_cost_credits > 0);
      const sinceSubmit = Date.parse(charged.cancelled_at) - Date.parse(charged.submitted_at);
      // The engine is charged up to the stop request, sent just after the cancel is recorded (a
      // few ms on a quiet machine, tens under load); the engine's own stopping (up to a second
      // and more before) is not charged.
      expect(charged.execution_cost_credits * 1000).toBeLessThanOrEqual(Math.max(10, sinceSubmit + 250));
    }
  });

  it('answers a status read of an unfinished execution when it ends, waiting at most max_wait_ms', async () => {
    // A quick run: the first read after the submit sees it completed, its status or its rows.
    const quick = await submitSql(host, 'select 42 as answer');
    expect((await bodyOf(await host.call(`/v1/execution/${quick}/status?max_wait_ms=20000`))).state).toBe(
      'QUERY_STATE_COMPLETED',
    );
    const quickRows = await submitSql(host, 'select 43 as answer');
    const page = await bodyOf(await host.call(`/v1/execution/${quickRows}/results?max_wait_ms=20000`));
    expect(page).toMatchObject({ state: 'QUERY_STATE_COMPLETED', result: { rows: [{ answer: 43 }] } });
    const quickCsv = await submitSql(host, 'select 44 as answer');
    const csv = await host.call(`/v1/execution/${quickCsv}/results/csv?max_wait_ms=20000`);
    expect(csv.status).toBe(200);
    expect(await csv.text()).toBe('answer\r\n44\r\n');

    const id = await submitSql(host, RUNAWAY_SQL);
    await waitForStatus(host, id, (s) => s.state === 'QUERY_STATE_EXECUTING');
    // 0 answers at once; a wait that runs out answers the state as it then stands.
    const now = await bodyOf(await host.call(`/v1/execution/${id}/status?max_wait_ms=0`));
    expect(now).toMatchObject({ state: 'QUERY_STATE_EXECUTING', is_execution_finished: false });
    const running = await bodyOf(await host.call(`/v1/execution/${id}/results?max_wait_ms=0`));
    expect(running.state).toBe('QUERY_STATE_EXECUTING');
    expect(running.result).toBeUndefined();
    expect((await host.call(`/v1/execution/${id}/results/csv?max_wait_ms=0`)).status).toBe(409);
    const heldSince = performance.now();
    const held = await bodyOf(await host.call(`/v1/execution/${id}/status?max_wait_ms=300`));
    expect(held.state).toBe('QUERY_STATE_EXECUTING');
    expect(performance.now() - heldSince).toBeGreaterThanOrEqual(290);
    // A read that may wait 20 s answers as soon as the run ends: here a cancel, 100 ms in.
    const waitSince = performance.now();
    const waiting = host.call(`/v1/execution/${id}/status?max_wait_ms=20000`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await host.call(`/v1/execution/${id}/cancel`, { method: 'POST' });
    expect((await bodyOf(await waiting)).state).toBe('QUERY_STATE_CANCELLED');
    expect(performance.now() - waitSince).toBeLessThan(5_000);

    // Another account's execution is not found at once, whatever the wait.
    const other = await newAccountKey(host, 'waiter');
    const foreignSince = performance.now();
    const foreign = await host.call(`/v1/execution/${quick}/status?max_wait_ms=20000`, { apiKey: other });
    expect(foreign.status).toBe(404);
    expect(performance.now() - foreignSince).toBeLessThan(5_000);

    for (const bad of ['-1', '20001', '1.5', 'soon']) {
      const response = await host.call(`/v1/execution/${id}/status?max_wait_ms=${bad}`);
      expect(response.status, bad).toBe(400);
      expect((await bodyOf(response)).error, bad).toMatch(/max_wait_ms/);
    }
    const unknown = await host.call(`/v1/execution/${id}/status?wait=5`);
    expect(unknown.status).toBe(400);
    expect((await bodyOf(unknown)).error).toMatch(/wait/);
  });

  it('refuses sandbox escapes as failed executions', async () => {
    for (const sql of [
      "select * from read_csv('/etc/passwd')",
      "copy (select 1) to '/tmp/x.csv'",
      "attach '/tmp/x.db'",
      'set threads = 64',
    ]) {
      const status = await waitUntilFinished(host, await submitSql(host, sql));
      expect(status.state, sql).toBe('QUERY_STATE_FAILED');
      expect(['permission_denied', 'syntax_error', 'execution_error'], sql).toContain(status.error.type);
    }
  });

  it("never shows one account's executions or results to another", async () => {
    const id = await submitSql(host, 'select 42 as answer');
    await waitUntilFinished(host, id);
    const otherKey = await newAccountKey(host, 'peeker');
    for (const path of [
      `/v1/execution/${id}/status`,
      `/v1/execution/${id}/results`,
      `/v1/execution/${id}/results/csv`,
    ]) {
      expect((await host.call(path, { apiKey: otherKey })).status, path).toBe(404);
    }
    expect((await host.call(`/v1/execution/${id}/cancel`, { method: 'POST', apiKey: otherKey })).status).toBe(
      404,
    );
    const snoopId = await submitSql(
      host,
      `select * from read_parquet('${host.dataDir}/results/${id}.parquet')`,
      {},
      otherKey,
    );
    const snoop = await waitUntilFinished(host, snoopId, undefined, otherKey);
    // DuckDB's file functions are not DuneSQL; the sandbox would refuse the path anyway
    // (test/engine/sandbox.test.ts proves it on raw DuckDB SQL).
    expect(snoop).toMatchObject({
      state: 'QUERY_STATE_FAILED',
      error: {
        type: 'syntax_error',
        message: expect.stringMatching(/^Function 'read_parquet' not registered/),
      },
    });
  });

  it("lets anyone who can read a public query read its runs, named by its latest result; never a private one's", async () => {
    const created = await bodyOf(
      await host.call('/v1/query', { json: { name: 'public answer', query_sql: 'select 7 as answer' } }),
    );
    const ownerRun = (await bodyOf(await host.call(`/v1/query/${created.query_id}/execute`, { json: {} })))
      .execution_id;
    await waitUntilFinished(host, ownerRun);
    const reader = await newAccountKey(host, 'reader');
    const latest = await bodyOf(await host.call(`/v1/query/${created.query_id}/results`, { apiKey: reader }));
    expect(latest).toMatchObject({ execution_id: ownerRun, result: { rows: [{ answer: 7 }] } });
    // The execution the latest result names answers by its id too.
    expect(
      await bodyOf(await host.call(`/v1/execution/${ownerRun}/status`, { apiKey: reader })),
    ).toMatchObject({
      state: 'QUERY_STATE_COMPLETED',
      query_id: created.query_id,
    });
    const page = await bodyOf(await host.call(`/v1/execution/${ownerRun}/results`, { apiKey: reader }));
    expect(page.result.rows).toEqual([{ answer: 7 }]);
    const csv = await host.call(`/v1/execution/${ownerRun}/results/csv`, { apiKey: reader });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toBe('answer\r\n7\r\n');
    // Reading is not owning: only the account that ran it may cancel it.
    const cancel = await host.call(`/v1/execution/${ownerRun}/cancel`, { method: 'POST', apiKey: reader });
    expect(cancel.status).toBe(404);

    // Made private, the query's runs are its owner's alone again.
    expect((await host.call(`/v1/query/${created.query_id}/private`, { method: 'POST' })).status).toBe(200);
    for (const path of [
      `/v1/execution/${ownerRun}/status`,
      `/v1/execution/${ownerRun}/results`,
      `/v1/execution/${ownerRun}/results/csv`,
      `/v1/query/${created.query_id}/results`,
    ]) {
      expect((await host.call(path, { apiKey: reader })).status, path).toBe(404);
    }
    expect((await host.call(`/v1/execution/${ownerRun}/status`)).status).toBe(200);
  });

  it('validates execution ids and bodies', async () => {
    expect((await host.call('/v1/execution/not-an-id/status')).status).toBe(400);
    expect((await host.call('/v1/execution/01HKZJ2683PHF9Q9PHHQ8FW4Q1/status')).status).toBe(404);
    const empty = await host.call('/v1/sql/execute', { json: { sql: '   ' } });
    expect(empty.status).toBe(400);
    expect((await bodyOf(empty)).error).toMatch(/sql must not be empty/);
    const tier = await host.call('/v1/sql/execute', { json: { sql: 'select 1', performance: 'huge' } });
    expect(tier.status).toBe(400);
  });
});
