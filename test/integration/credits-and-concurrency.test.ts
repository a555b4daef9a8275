import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingPeriodOf } from '../../functions/core/credits';
import { RUNAWAY_SQL, submitSql, waitForStatus, waitUntilFinished } from '../support/executions';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

describe('credits, usage, the credit limit and the concurrency queue', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost(undefined, {
      execution: {
        maxConcurrentExecutions: 1,
        queryTimeoutMs: { medium: 1500, large: 1500 },
      },
    });
  });
  afterAll(() => host?.stop());

  it('charges engine time × tier factor and reports it in usage', async () => {
    const before = await bodyOf(await host.call('/v1/usage', { method: 'POST' }));
    const medium = await waitUntilFinished(
      host,
      await submitSql(host, 'select count(*) from ethereum.transactions'),
    );
    const large = await waitUntilFinished(
      host,
      await submitSql(host, 'select count(*) from ethereum.transactions', { performance: 'large' }),
    );
    expect(medium.execution_cost_credits).toBeGreaterThan(0);
    expect(large.execution_cost_credits).toBeGreaterThan(0);
    const failed = await waitUntilFinished(host, await submitSql(host, RUNAWAY_SQL));
    expect(failed.error.type).toBe('timeout');
    expect(failed.execution_cost_credits).toBeGreaterThanOrEqual(1);
    const after = await bodyOf(await host.call('/v1/usage', { method: 'POST', json: {} }));
    const period = after.billing_periods[0];
    expect(period.start_date).toBe(`${billingPeriodOf(new Date())}-01`);
    const charged =
      medium.execution_cost_credits + large.execution_cost_credits + failed.execution_cost_credits;
    expect(period.credits_used - before.billing_periods[0].credits_used).toBeCloseTo(charged, 2);
    expect(after.bytes_used).toBeGreaterThan(0);
  });

  it('queues executions over the concurrency limit in PENDING with a queue position', async () => {
    const first = await submitSql(host, RUNAWAY_SQL);
    await waitForStatus(host, first, (s) => s.state === 'QUERY_STATE_EXECUTING');
    const second = await submitSql(host, 'select 1 as x');
    const queued = await bodyOf(await host.call(`/v1/execution/${second}/status?max_wait_ms=0`));
    expect(queued).toMatchObject({
      state: 'QUERY_STATE_PENDING',
      queue_position: 1,
      max_inflight_interactive_executions: 1,
    });
    await host.call(`/v1/execution/${first}/cancel`, { method: 'POST' });
    expect((await waitUntilFinished(host, second)).state).toBe('QUERY_STATE_COMPLETED');
  });

  it('refuses to execute past the credit limit with 402', async () => {
    await host.services.usage.setCreditLimit(host.accountId, 0.001);
    const response = await host.call('/v1/sql/execute', { json: { sql: 'select 1' } });
    expect(response.status).toBe(402);
    const { error } = await bodyOf(response);
    // What a user of a deployed service can do: wait for the next period, or ask the operator.
    expect(error).toMatch(
      /exceed your credit limit .* Runs start again when the next billing period begins \(\d{4}-\d{2}-01, UTC\); to run sooner, ask the service's operator to raise your credit limit/,
    );
    expect(error).not.toMatch(/npm|admin/);
    const usage = await bodyOf(await host.call('/v1/usage', { method: 'POST' }));
    expect(usage.billing_periods[0].credits_included).toBe(0.001);
    await host.services.usage.setCreditLimit(host.accountId, 1_000_000);
  });

  it('validates usage dates', async () => {
    const response = await host.call('/v1/usage', { json: { start_date: '2026-13-01' } });
    expect(response.status).toBe(400);
    const range = await bodyOf(
      await host.call('/v1/usage', { json: { start_date: '2026-09-15', end_date: '2026-11-02' } }),
    );
    expect(range.billing_periods.map((p: { start_date: string }) => p.start_date)).toEqual([
      '2026-09-01',
      '2026-10-01',
      '2026-11-01',
    ]);
  });
});

describe('an execution the engine queues (all engine processes busy)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost(undefined, {
      execution: { maxConcurrentExecutions: 3, queryTimeoutMs: { medium: 30_000, large: 30_000 } },
      engine: { pool: { size: 1 } },
    });
  });
  afterAll(() => host?.stop());

  it('reads PENDING while it waits for an engine process, EXECUTING only once it runs', async () => {
    const busy = await submitSql(host, RUNAWAY_SQL);
    await waitForStatus(host, busy, (s) => s.state === 'QUERY_STATE_EXECUTING');
    const queued = await submitSql(host, 'select 2 as two');
    // It got one of the account's slots and went to the engine, whose only process is busy.
    const deadline = Date.now() + 10_000;
    while (!(await host.services.executions.get(queued))?.engineRunId && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await host.services.executions.get(queued))?.engineRunId).toBe(queued);
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) {
      seen.add((await bodyOf(await host.call(`/v1/execution/${queued}/status?max_wait_ms=0`))).state);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...seen]).toEqual(['QUERY_STATE_PENDING']);
    await host.call(`/v1/execution/${busy}/cancel`, { method: 'POST' });
    const done = await waitUntilFinished(host, queued);
    expect(done).toMatchObject({ state: 'QUERY_STATE_COMPLETED' });
    expect(Date.parse(done.execution_started_at)).toBeGreaterThanOrEqual(Date.parse(done.submitted_at));
    expect((await waitUntilFinished(host, busy)).state).toBe('QUERY_STATE_CANCELLED');
  });
});
