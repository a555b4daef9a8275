import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution } from '../../functions/core/executions';
import { newId } from '../../functions/core/ids';
import type { PipelineNodeRun } from '../../functions/core/pipelines';
import { createNodeRunner } from '../../functions/runner/node-runner';
import { executionDeadline, SWEEP_GRACE_MS, sweepLostWork } from '../../functions/runner/sweeper';
import { storeExecution } from '../support/executions';
import { startTestHost, type TestHost } from '../support/test-host';

/**
 * The scheduled sweep (the runner's `sweep` action, every 5 minutes in AWS): work whose workflow
 * died stays active in the store; past every bound of its workflow it ends FAILED, its engine run
 * stopped and its slot freed. Records are written as a dead workflow leaves them.
 */
describe('the sweeper ends work whose workflow died, and nothing else', () => {
  let host: TestHost;
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

  const record = (submittedAt: Date, changes: Partial<Execution> = {}) =>
    storeExecution(host, submittedAt, changes);

  beforeAll(async () => {
    host = await startTestHost(undefined, { execution: { maxConcurrentExecutions: 1 } });
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('fails an execution past its bounds, stops its run and frees its slot; leaves a recent one alone', async () => {
    const lost = await record(hoursAgo(3), { engineRunId: 'lost-run', state: 'QUERY_STATE_EXECUTING' });
    const recent = await record(new Date());
    // The dead workflow still holds the account's only slot.
    expect(await host.services.limiter.tryAcquire(host.accountId, 1)).toBe(true);
    expect(await host.services.limiter.tryAcquire(host.accountId, 1)).toBe(false);

    // Just inside its bounds: untouched.
    const deadline = executionDeadline(lost, host.services);
    expect(await sweepLostWork(host.services, deadline - 1)).toEqual({
      executions: 0,
      pipelines: 0,
      slotCounts: 0,
      uploadGenerations: 0,
    });
    expect((await host.services.executions.get(lost.executionId))!.state).toBe('QUERY_STATE_EXECUTING');

    // Through the runner, as the schedule invokes it.
    expect(await createNodeRunner(host.services)({ action: 'sweep' })).toEqual({
      executions: 1,
      pipelines: 0,
      slotCounts: 0,
      uploadGenerations: 0,
    });
    expect(await host.services.executions.get(lost.executionId)).toMatchObject({
      state: 'QUERY_STATE_FAILED',
      error: { type: 'internal_error', message: expect.stringMatching(/workflow stopped without recording/) },
    });
    expect((await host.services.executions.get(recent.executionId))!.state).toBe('QUERY_STATE_PENDING');
    expect(await host.services.limiter.tryAcquire(host.accountId, 1)).toBe(true);
    await host.services.limiter.release(host.accountId);
    // A second sweep finds nothing more.
    expect(await sweepLostWork(host.services)).toEqual({
      executions: 0,
      pipelines: 0,
      slotCounts: 0,
      uploadGenerations: 0,
    });
    await host.services.executions.transition(recent.executionId, ['QUERY_STATE_PENDING'], {
      state: 'QUERY_STATE_CANCELLED',
    });
  });

  it('corrects a slot count no active execution can hold (a release that never happened)', async () => {
    // Nothing of the account active (whatever an earlier test left), no slot counted.
    for (const execution of await host.services.executions.listActive(host.accountId)) {
      await host.services.executions.transition(
        execution.executionId,
        ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'],
        {
          state: 'QUERY_STATE_CANCELLED',
        },
      );
    }
    await host.services.limiter.reset(host.accountId);
    // A leaked slot: counted, but the account has nothing running.
    expect(await host.services.limiter.tryAcquire(host.accountId, 1)).toBe(true);
    expect(await host.services.limiter.tryAcquire(host.accountId, 1)).toBe(false);
    expect(await sweepLostWork(host.services)).toMatchObject({ slotCounts: 1 });
    expect(await host.services.limiter.running(host.accountId)).toBe(0);
    // A count its active executions explain is left alone.
    const holder = await record(new Date(), { engineRunId: 'held', state: 'QUERY_STATE_EXECUTING' });
    expect(await host.services.limiter.tryAcquire(host.accountId, 1)).toBe(true);
    expect(await sweepLostWork(host.services)).toMatchObject({ slotCounts: 0 });
    expect(await host.services.limiter.running(host.accountId)).toBe(1);
    // A count that changed since it was read is not corrected (the next sweep looks again).
    expect(await host.services.limiter.correctRunning(host.accountId, 5, 0)).toBe(false);
    await host.services.executions.transition(holder.executionId, ['QUERY_STATE_EXECUTING'], {
      state: 'QUERY_STATE_CANCELLED',
    });
    await host.services.limiter.reset(host.accountId);
  });

  it('a slot wait that timed out (AcquireSlot: States.Timeout) fails resource_exhausted, not as a crash', async () => {
    const queued = await record(new Date());
    await createNodeRunner(host.services)({
      action: 'record_failure',
      execution_id: queued.executionId,
      error: 'States.Timeout',
      cause: '',
    });
    expect(await host.services.executions.get(queued.executionId)).toMatchObject({
      state: 'QUERY_STATE_FAILED',
      error: {
        type: 'resource_exhausted',
        message: expect.stringMatching(/^Waited too long for an execution slot/),
      },
    });
  });

  it('ends a pipeline run past its bounds with its nodes and their executions', async () => {
    const submitted = hoursAgo(30);
    const pipelineExecutionId = newId(submitted.getTime());
    const nodeExecution = await record(submitted, {
      state: 'QUERY_STATE_EXECUTING',
      engineRunId: 'node-run',
      pipelineExecutionId,
    });
    const node = (nodeId: number, changes: Pick<PipelineNodeRun, 'state' | 'executionId'>) => ({
      pipelineExecutionId,
      nodeId,
      kind: 'query_execution' as const,
      queryId: 1,
      performance: 'medium' as const,
      dependencies: nodeId === 1 ? [] : [1],
      ...changes,
    });
    await host.services.pipelines.create(
      {
        pipelineExecutionId,
        accountId: host.accountId,
        state: 'executing',
        graphHash: 'h',
        graph: {
          nodes: [
            { id: 1, dependencies: [], queryExecution: { queryId: 1, performance: 'medium' } },
            { id: 2, dependencies: [1], queryExecution: { queryId: 1, performance: 'medium' } },
          ],
        },
        submittedAt: submitted.toISOString(),
      },
      [node(1, { state: 'running', executionId: nodeExecution.executionId }), node(2, { state: 'pending' })],
    );
    // The node's execution is the pipeline's to end: a sweep before the pipeline's bound skips both.
    const early = Date.now() - 30 * 3_600_000 + SWEEP_GRACE_MS;
    expect(await sweepLostWork(host.services, early)).toEqual({
      executions: 0,
      pipelines: 0,
      slotCounts: 0,
      uploadGenerations: 0,
    });

    expect(await sweepLostWork(host.services)).toEqual({
      executions: 0,
      pipelines: 1,
      slotCounts: 0,
      uploadGenerations: 0,
    });
    const run = (await host.services.pipelines.get(pipelineExecutionId))!;
    expect(run.execution).toMatchObject({ state: 'failed', error: expect.stringMatching(/retry reruns/) });
    expect(run.nodes.map((n) => [n.nodeId, n.state])).toEqual([
      [1, 'failed'],
      [2, 'cancelled'],
    ]);
    expect((await host.services.executions.get(nodeExecution.executionId))!.state).toBe('QUERY_STATE_FAILED');
  });

  it('ends a cancelled run whose stopped node was never charged as cancelled, with a final cost', async () => {
    const submitted = hoursAgo(30);
    const pipelineExecutionId = newId(submitted.getTime());
    // The cancel stopped node 1's run and was charged 0.4 credits; node 2's run was stopped, but
    // its workflow died before its engine time was recorded.
    const charged = await record(submitted, {
      state: 'QUERY_STATE_CANCELLED',
      engineRunId: 'charged-run',
      pipelineExecutionId,
      credits: 0.4,
      engineMillis: 400,
    });
    const lost = await record(submitted, {
      state: 'QUERY_STATE_CANCELLED',
      engineRunId: 'lost-run',
      pipelineExecutionId,
    });
    const node = (nodeId: number, executionId: string) => ({
      pipelineExecutionId,
      nodeId,
      kind: 'query_execution' as const,
      queryId: 1,
      performance: 'medium' as const,
      dependencies: [],
      state: 'cancelled' as const,
      executionId,
    });
    await host.services.pipelines.create(
      {
        pipelineExecutionId,
        accountId: host.accountId,
        state: 'executing',
        cancelledAt: submitted.toISOString(),
        graphHash: 'h',
        graph: {
          nodes: [
            { id: 1, dependencies: [], queryExecution: { queryId: 1, performance: 'medium' } },
            { id: 2, dependencies: [], queryExecution: { queryId: 1, performance: 'medium' } },
          ],
        },
        submittedAt: submitted.toISOString(),
      },
      [node(1, charged.executionId), node(2, lost.executionId)],
    );
    expect((await sweepLostWork(host.services)).pipelines).toBe(1);
    const run = (await host.services.pipelines.get(pipelineExecutionId))!;
    expect(run.execution).toMatchObject({ state: 'cancelled', error: 'Cancelled by the user.' });
    expect(run.nodes.map((n) => [n.nodeId, n.state, n.credits])).toEqual([
      [1, 'cancelled', 0.4],
      [2, 'cancelled', 0],
    ]);
  });
});
