import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNAWAY_SQL, submitSql, waitForStatus, waitUntilFinished } from '../support/executions';
import { bodyOf, prepareDataDir, startTestHost } from '../support/test-host';

describe('graceful restart with running executions', () => {
  let dataDir: string;
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  // Two host starts, each warming an engine process (with the DuneSQL translator) for its runs.
  it('never leaves an execution EXECUTING forever, and keeps finished results', {
    timeout: 60_000,
  }, async () => {
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
  });
});

describe('restart in the middle of a pipeline', () => {
  let dataDir: string;
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  // Both host stops must be prompt: a stop waits for the task handlers in flight, ends the
  // dependency gates' waits, and closes the store only after them (test/unit/local-shutdown.test.ts).
  it('ends the run failed with every node terminal, and retry reruns only what did not complete', {
    timeout: 90_000,
  }, async () => {
    dataDir = await prepareDataDir();
    // The run's webhook is told how it ended, after the restart ended it.
    const posted: string[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        posted.push(body);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const first = await startTestHost(dataDir);
    const create = async (sql: string) =>
      (await bodyOf(await first.call('/v1/query', { json: { name: 'p', query_sql: sql } })))
        .query_id as number;
    const quick = await create('select 1 as one');
    const slow = await create(RUNAWAY_SQL);
    const graph = {
      webhook_url: webhookUrl,
      pipeline: {
        nodes: [
          { id: 1, query_execution: { query_id: quick } },
          { id: 2, dependencies: [1], query_execution: { query_id: slow } },
          { id: 3, dependencies: [2], query_execution: { query_id: quick } },
        ],
      },
    };
    const { pipeline_execution_id: id } = await bodyOf(
      await first.call('/v1/pipelines/execute', { json: graph }),
    );
    for (let i = 0; i < 200; i++) {
      const status = await bodyOf(await first.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=0`));
      if (status.node_executions[1].query_execution_status.status === 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await first.stop();

    const second = await startTestHost(dataDir);
    try {
      const status = await bodyOf(await second.call(`/v1/pipelines/executions/${id}/status`));
      expect(status.status).toBe('failed');
      expect(status.error).toMatch(/restarted during this run/);
      const states = status.node_executions.map(
        (n: { query_execution_status: { status: string } }) => n.query_execution_status.status,
      );
      // Node 3 never ran: skipped (its dependency failed as the host stopped) or cancelled (by recovery).
      expect(states.slice(0, 2)).toEqual(['completed', 'failed']);
      expect(['skipped', 'cancelled']).toContain(states[2]);
      await second.call(`/v1/query/${slow}`, { method: 'PATCH', json: { query_sql: 'select 2 as two' } });
      const retry = await bodyOf(
        await second.call(`/v1/pipelines/executions/${id}/retry`, { method: 'POST' }),
      );
      expect(retry).toMatchObject({ rerun_node_ids: [2, 3], reused_node_ids: [1] });
      for (let i = 0; i < 200 && posted.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(JSON.parse(posted[0]!)).toMatchObject({ pipeline_execution_id: id, status: 'failed' });
    } finally {
      await second.stop();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
