import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution } from '../../functions/core/executions';
import { acquireSlot } from '../../functions/executions/slots';
import type { Services } from '../../functions/services';
import { storeExecution } from '../support/executions';
import { startTestHost, type TestHost } from '../support/test-host';

/** Slots go oldest first, judged on the execution records, not on a lagging index. */
describe('taking an execution slot', () => {
  let host: TestHost;
  const record = (changes: Partial<Execution> = {}) => storeExecution(host, new Date(), changes);

  beforeAll(async () => {
    host = await startTestHost(undefined, { execution: { maxConcurrentExecutions: 2 } });
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('waits behind an older queued execution, but not behind one the index still lists after it started', async () => {
    const older = await record();
    await new Promise((resolve) => setTimeout(resolve, 2)); // a later ULID
    const younger = await record();
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
});
