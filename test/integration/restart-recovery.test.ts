import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNAWAY_SQL, submitSql, waitForStatus, waitUntilFinished } from '../support/executions';
import { bodyOf, prepareDataDir, startTestHost } from '../support/test-host';

describe('graceful restart with running executions', () => {
  let dataDir: string;
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('never leaves an execution EXECUTING forever, and keeps finished results', async () => {
    dataDir = await prepareDataDir();
    const first = await startTestHost(dataDir, {
      execution: { queryTimeoutMs: { medium: 60_000, large: 60_000 }, maxConcurrentExecutions: 1 },
    });
    const done = await submitSql(first, 'select 7 as seven');
    await waitUntilFinished(first, done);
    const running = await submitSql(first, RUNAWAY_SQL);
    await waitForStatus(first, running, (s) => s.state === 'QUERY_STATE_EXECUTING');
    const queued = await submitSql(first, 'select 8 as eight');
    await first.stop();

    const second = await startTestHost(dataDir);
    try {
      const interrupted = await bodyOf(await second.call(`/v1/execution/${running}/status`));
      expect(interrupted).toMatchObject({
        state: 'QUERY_STATE_FAILED',
        error: { message: expect.stringMatching(/shut down/) },
      });
      const resumed = await waitUntilFinished(second, queued);
      expect(resumed.state).toBe('QUERY_STATE_COMPLETED');
      const kept = await bodyOf(await second.call(`/v1/execution/${done}/results`));
      expect(kept.result.rows).toEqual([{ seven: 7 }]);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
