import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey } from '../../functions/accounts/use-cases';
import { billingPeriodOf } from '../../functions/core/credits';
import type { Execution } from '../../functions/core/executions';
import { acquireSlot } from '../../functions/executions/slots';
import type { Services } from '../../functions/services';
import { RUNAWAY_SQL, storeExecution, submitSql, waitUntilFinished } from '../support/executions';
import { startTestHost, type TestHost } from '../support/test-host';

/** Slots go oldest first, judged on the execution records, not on a lagging index. */
describe('taking an execution slot', () => {
  let host: TestHost;
  const record = (changes: Partial<Execution> = {}) => storeExecution(host, new Date(), changes);

  beforeAll(async () => {
    // Waiters try again only when woken: a missing wake-up shows as a wait of a minute.
    host = await startTestHost(undefined, {
      execution: { maxConcurrentExecutions: 2 },
      slotRecheckMillis: 60_000,
    });
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('keeps the slot an older queued execution needs, but not behind one the index still lists after it started', async () => {
    const older = await record();
    await new Promise((resolve) => setTimeout(resolve, 2)); // a later ULID
    const younger = await record();
    // One of the two slots is taken: the last one is the older execution's.
    expect(await host.services.limiter.tryAcquire(host.accountId, 2)).toBe(true);
    expect(await acquireSlot(host.services, younger.executionId, 0)).toMatchObject({ status: 'waiting' });

    // The older one was submitted; an eventually consistent index may still list it as queued.
    await host.services.executions.transition(older.executionId, ['QUERY_STATE_PENDING'], {
      engineRunId: 'run-1',
    });
    const staleIndex: Services = {
      ...host.services,
      executions: Object.assign(Object.create(host.services.executions), {
        listActive: async () => [older, younger],
      }),
    };
    expect(await acquireSlot(staleIndex, younger.executionId, 0)).toMatchObject({ status: 'acquired' });
    await host.services.limiter.reset(host.accountId);
    for (const execution of [older, younger]) {
      await host.services.executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_CANCELLED',
      });
    }
  });

  it("keeps no slot for an older node of the same pipeline run, only for other work's", async () => {
    const older = await record({ pipelineExecutionId: 'run-a' });
    await new Promise((resolve) => setTimeout(resolve, 2));
    const younger = await record({ pipelineExecutionId: 'run-a' });
    await new Promise((resolve) => setTimeout(resolve, 2));
    const otherRun = await record({ pipelineExecutionId: 'run-b' });
    // One slot of two is taken: the last one is not kept for the older node of the same run...
    expect(await host.services.limiter.tryAcquire(host.accountId, 2)).toBe(true);
    expect(await acquireSlot(host.services, younger.executionId, 0)).toMatchObject({ status: 'acquired' });
    await host.services.limiter.release(host.accountId);
    // ...but it is kept for it against another run's node.
    expect(await acquireSlot(host.services, otherRun.executionId, 0)).toMatchObject({ status: 'waiting' });
    await host.services.limiter.reset(host.accountId);
    for (const execution of [older, younger, otherRun]) {
      await host.services.executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_CANCELLED',
      });
    }
  });

  it('lets executions queued together all start when the account has a slot for each', async () => {
    const older = await record();
    await new Promise((resolve) => setTimeout(resolve, 2));
    const younger = await record();
    await new Promise((resolve) => setTimeout(resolve, 2));
    const youngest = await record();
    // Two slots, three queued: the younger one does not wait for the older one's turn, since a
    // slot is left for it; the youngest finds both slots spoken for and waits.
    expect(await acquireSlot(host.services, younger.executionId, 0)).toMatchObject({ status: 'acquired' });
    expect(await acquireSlot(host.services, youngest.executionId, 0)).toMatchObject({ status: 'waiting' });
    expect(await acquireSlot(host.services, older.executionId, 0)).toMatchObject({ status: 'acquired' });
    expect(await host.services.limiter.running(host.accountId)).toBe(2);
    await host.services.limiter.reset(host.accountId);
    for (const execution of [older, younger, youngest]) {
      await host.services.executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_CANCELLED',
      });
    }
  });

  it('lets the next execution in line take a free slot as soon as the one ahead of it is submitted', async () => {
    // Submitted together: the younger one finds the older one still queued and waits for its turn.
    const [older, younger] = await Promise.all([submitSql(host, RUNAWAY_SQL), submitSql(host, RUNAWAY_SQL)]);
    const submitted = async (executionId: string) =>
      (await host.services.executions.get(executionId))?.engineRunId !== undefined;
    const deadline = Date.now() + 15_000;
    while (!((await submitted(older)) && (await submitted(younger))) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Both hold a slot while the older one still runs (it runs until cancelled).
    expect([await submitted(older), await submitted(younger)]).toEqual([true, true]);
    for (const executionId of [older, younger]) {
      await host.call(`/v1/execution/${executionId}/cancel`, { method: 'POST' });
      expect((await waitUntilFinished(host, executionId)).state).toBe('QUERY_STATE_CANCELLED');
    }
  });

  it("records a run's credits and result storage even when freeing its slot fails, and frees the slot first", async () => {
    const { limiter, usage } = host.services;
    // An account of its own: nothing else it runs can land in the order observed.
    const account = await createAccount(host.services.accounts, { handle: 'bookkeeping' });
    const { apiKey } = await createApiKey(host.services.accounts, account.accountId);
    const period = billingPeriodOf(new Date());
    const order: string[] = [];
    const release = limiter.release.bind(limiter);
    const addCredits = usage.addCredits.bind(usage);
    const addStorageBytes = usage.addStorageBytes.bind(usage);
    const observe = (accountId: string, step: string) => {
      if (accountId === account.accountId) order.push(step);
    };
    let failRelease = true;
    Object.assign(limiter, {
      release: async (accountId: string) => {
        observe(accountId, 'release');
        if (failRelease && accountId === account.accountId) {
          failRelease = false;
          throw new Error('the slot counter is unreachable');
        }
        return release(accountId);
      },
    });
    Object.assign(usage, {
      addCredits: async (...args: Parameters<typeof addCredits>) => {
        observe(args[0], 'credits');
        return addCredits(...args);
      },
      addStorageBytes: async (...args: Parameters<typeof addStorageBytes>) => {
        observe(args[0], 'storage');
        return addStorageBytes(...args);
      },
    });
    try {
      const executionId = await submitSql(host, 'select 1 as one', {}, apiKey);
      expect((await waitUntilFinished(host, executionId, undefined, apiKey)).state).toBe(
        'QUERY_STATE_COMPLETED',
      );
      const deadline = Date.now() + 5_000;
      while ((await usage.getStorageBytes(account.accountId)) === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The slot first, then the rest in turn (the failed release may be retried meanwhile).
      expect(order[0]).toBe('release');
      expect(order.indexOf('credits')).toBeGreaterThan(0);
      expect(order.indexOf('storage')).toBeGreaterThan(order.indexOf('credits'));
      expect((await usage.getCredits(account.accountId, [period]))[0]!.creditsUsed).toBeGreaterThan(0);
      expect(await usage.getStorageBytes(account.accountId)).toBeGreaterThan(0);
    } finally {
      Object.assign(limiter, { release });
      Object.assign(usage, { addCredits, addStorageBytes });
      await limiter.reset(account.accountId);
    }
  });
});
