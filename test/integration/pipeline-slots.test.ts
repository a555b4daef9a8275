import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';

/**
 * Pipeline nodes wait for the account's execution slots on the slot gate (WaitForSlot_n parks on a
 * token, like a single query's AcquireSlot): with one slot, four independent nodes run one after
 * another, each handed the slot the previous one freed, and all complete.
 */
describe('pipeline nodes share the account’s execution slots through the slot gate', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost(undefined, { execution: { maxConcurrentExecutions: 1 } });
  });
  afterAll(() => host?.stop());

  it('runs more independent nodes than slots one at a time, all to completion', async () => {
    const queryId = (
      await bodyOf(
        await host.call('/v1/query', {
          json: { name: 'slot share', query_sql: 'select count(*) as n from dex.trades' },
        }),
      )
    ).query_id as number;
    const parked = vi.spyOn(host.services.slotGate, 'awaitSlot');
    const nodes = [1, 2, 3, 4].map((id) => ({ id, query_execution: { query_id: queryId } }));
    const started = await bodyOf(await host.call('/v1/pipelines/execute', { json: { pipeline: { nodes } } }));
    const t0 = Date.now();
    let status: Json;
    const seen = new Set<string>();
    for (;;) {
      status = await bodyOf(
        await host.call(`/v1/pipelines/executions/${started.pipeline_execution_id}/status?max_wait_ms=0`),
      );
      for (const node of status.node_executions) {
        const { status: state, queued, execution_started_at } = node.query_execution_status;
        if (state === 'running') seen.add(queued ? 'queued' : 'executing');
        // Queued, a running node has no execution start yet; executing, it has one.
        if (state === 'running') expect(queued === true).toBe(execution_started_at === undefined);
      }
      if (['completed', 'failed', 'cancelled'].includes(status.status)) break;
      if (Date.now() - t0 > 60_000) throw new Error(`pipeline never finished: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status.status).toBe('completed');
    const runs = await Promise.all(
      status.node_executions.map(async (node: Json) => {
        const executionId = node.query_execution_status.execution_id;
        return bodyOf(await host.call(`/v1/execution/${executionId}/status`));
      }),
    );
    expect(runs.map((run) => run.state)).toEqual(Array(4).fill('QUERY_STATE_COMPLETED'));
    // Three nodes waited for the one slot: the status showed them queued, not running.
    expect(seen.has('queued')).toBe(true);
    // Each node tells its queue wait (started_at → execution_started_at) from its run.
    status.node_executions.forEach((node: Json, i: number) => {
      const timings = node.query_execution_status;
      expect(timings.queued).toBeUndefined();
      expect(timings.execution_started_at).toBe(runs[i].execution_started_at);
      expect(Date.parse(timings.started_at)).toBeLessThanOrEqual(Date.parse(timings.execution_started_at));
    });
    // One slot: no two runs overlap.
    const spans = runs
      .map((run) => [Date.parse(run.execution_started_at), Date.parse(run.execution_ended_at)] as const)
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    // The nodes that found the slot taken parked on the gate (WaitForSlot_n), each once.
    const waiters = parked.mock.calls.map(([request]) => request.executionId);
    expect(waiters.length).toBeGreaterThanOrEqual(1);
    expect(new Set(waiters).size).toBe(waiters.length);
    // Handed on at once, not found by a poll seconds later.
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});
