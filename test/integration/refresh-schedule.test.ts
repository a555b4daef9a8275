import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStepFunctions } from '../../functions/local/step-functions';
import { createNodeRunner } from '../../functions/runner/node-runner';
import { storeExecution, submitSql, waitUntilFinished } from '../support/executions';
import { crossJoinSql } from '../support/runaway-sql';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';

// One local host per test file: services are process-wide, as in a Lambda instance.
describe('scheduled refreshes', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  it('run as a pipeline when their cron fires: upstream views first, then the view', async () => {
    // The test drives the clock alone: the host's own 30 s ticks stop, and a first tick now moves the
    // scheduler past any quarter hour that struck between the host's start and this line.
    await host.scheduler.stop();
    const baseline = Date.now();
    await host.scheduler.tick(new Date(baseline));
    const create = async (sql: string) =>
      (await bodyOf(await host.call('/v1/query', { json: { name: 'scheduled', query_sql: sql } })))
        .query_id as number;
    const base = await create('select 10 as v');
    const upstream = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_sched_base', query_id: base } }),
    );
    await waitUntilFinished(host, upstream.execution_id);
    const top = await create('select v + 1 as w from mv.local.result_sched_base');
    const scheduled = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: { name: 'result_sched_top', query_id: top, cron_expression: '*/15 * * * *' },
      }),
    );
    await waitUntilFinished(host, scheduled.execution_id);
    await host.call(`/v1/query/${base}`, { method: 'PATCH', json: { query_sql: 'select 20 as v' } });

    // Drive the scheduler's clock: nothing is due before the next quarter hour, then one run is.
    const quarter = new Date((Math.floor(baseline / 900_000) + 1) * 900_000);
    expect(await host.scheduler.tick(new Date(quarter.getTime() - 1000))).toEqual([]);
    expect(await host.scheduler.tick(new Date(quarter.getTime() + 1000))).toEqual([
      'mv.local.result_sched_top',
    ]);
    for (let i = 0; i < 400; i++) {
      const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_sched_top'));
      if (view.last_execution_ids.length === 2 && view.current_execution_id === view.last_execution_ids[0])
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const id = await submitSql(host, 'select w from mv.local.result_sched_top');
    await waitUntilFinished(host, id);
    expect((await bodyOf(await host.call(`/v1/execution/${id}/results`))).result.rows).toEqual([{ w: 21 }]);
  });

  it('share one refresh of a view due itself and upstream of another view due at the same tick', async () => {
    await host.scheduler.stop();
    const baseline = Date.now() + 3 * 86_400_000; // past every tick the test before drove
    await host.scheduler.tick(new Date(baseline));
    const create = async (sql: string) =>
      (await bodyOf(await host.call('/v1/query', { json: { name: 'shared', query_sql: sql } })))
        .query_id as number;
    const upsert = async (name: string, queryId: number) => {
      const made = await bodyOf(
        await host.call('/v1/materialized-views', {
          json: { name, query_id: queryId, cron_expression: '*/15 * * * *' },
        }),
      );
      await waitUntilFinished(host, made.execution_id);
    };
    // Slow enough (about a second) that both runs of the tick reach it while it runs.
    await upsert('result_shared_up', await create(crossJoinSql(3e7)));
    await upsert('result_shared_down', await create('select h + 1 as h1 from mv.local.result_shared_up'));
    const viewOf = async (name: string) => bodyOf(await host.call(`/v1/materialized-views/mv.local.${name}`));

    const quarter = (Math.floor(baseline / 900_000) + 1) * 900_000;
    expect(
      (await host.scheduler.tick(new Date(quarter + 1000))).filter((name) => name.includes('shared')).sort(),
    ).toEqual(['mv.local.result_shared_down', 'mv.local.result_shared_up']);
    let down = await viewOf('result_shared_down');
    for (
      let i = 0;
      i < 600 &&
      !(down.last_execution_ids.length === 2 && down.current_execution_id === down.last_execution_ids[0]);
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      down = await viewOf('result_shared_down');
    }
    expect(down.current_execution_id).toBe(down.last_execution_ids[0]);
    // The upstream view ran once at the tick: its own schedule's run and the downstream pipeline
    // share that one refresh, charged once.
    const up = await viewOf('result_shared_up');
    expect(up.last_execution_ids).toHaveLength(2);
    const refresh = await host.services.executions.get(up.last_execution_ids[0]);
    expect(refresh?.state).toBe('QUERY_STATE_COMPLETED');
    expect((await host.services.executions.get(up.last_execution_ids[0]))?.state).toBe(
      'QUERY_STATE_COMPLETED',
    );

    // In AWS each view's EventBridge schedule invokes the node runner: fired together, the same.
    const runner = createNodeRunner(host.services);
    const runs = (await Promise.all(
      ['mv.local.result_shared_up', 'mv.local.result_shared_down'].map((view) =>
        runner({ action: 'scheduled_refresh', materialized_view: view }),
      ),
    )) as { pipelineExecutionId: string }[];
    const upRefreshes = await Promise.all(
      runs.map(async ({ pipelineExecutionId }) => {
        const status = await bodyOf(
          await host.call(`/v1/pipelines/executions/${pipelineExecutionId}/status?max_wait_ms=20000`),
        );
        expect(status, JSON.stringify(status)).toMatchObject({
          status: 'completed',
          trigger: { type: 'schedule', cron_expression: '*/15 * * * *' },
        });
        return status.node_executions
          .map((node: Json) => node.materialized_view_refresh_status)
          .find((node: Json | undefined) => node?.name === 'mv.local.result_shared_up');
      }),
    );
    const [paid, joined] = [
      upRefreshes.find((node) => !node.shared_refresh),
      upRefreshes.find((node) => node.shared_refresh === true),
    ];
    expect(joined?.execution_id).toBe(paid?.execution_id);
    expect(joined?.status).toBe('completed');
    expect(joined?.execution_cost_credits).toBe(0);
    expect(paid?.execution_cost_credits).toBeGreaterThan(0);
    expect((await viewOf('result_shared_up')).last_execution_ids).toHaveLength(3);
  });

  it('joins a refresh a request started; cancelling the run stops following it, not the refresh', async () => {
    const create = async (sql: string) =>
      (await bodyOf(await host.call('/v1/query', { json: { name: 'joined', query_sql: sql } })))
        .query_id as number;
    const made = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: { name: 'result_joined_up', query_id: await create(crossJoinSql(3e7)) },
      }),
    );
    await waitUntilFinished(host, made.execution_id);
    const report = await create('select h from mv.local.result_joined_up');
    const refresh = await bodyOf(
      await host.call('/v1/materialized-views/mv.local.result_joined_up/refresh', { method: 'POST' }),
    );
    const run = await bodyOf(await host.call(`/v1/query/${report}/pipeline/execute`, { method: 'POST' }));
    const status = await statusOnceFollowing(host, run.pipeline_execution_id);
    expect(status.node_executions[0].materialized_view_refresh_status).toMatchObject({
      name: 'mv.local.result_joined_up',
      status: 'running',
      execution_id: refresh.execution_id,
      shared_refresh: true,
    });
    expect(
      (await host.call(`/v1/pipelines/executions/${run.pipeline_execution_id}/cancel`, { method: 'POST' }))
        .status,
    ).toBe(200);
    const cancelled = await bodyOf(
      await host.call(`/v1/pipelines/executions/${run.pipeline_execution_id}/status?max_wait_ms=10000`),
    );
    expect(cancelled).toMatchObject({ status: 'cancelled', execution_cost_credits: 0 });
    expect(cancelled.node_executions[0].materialized_view_refresh_status).toMatchObject({
      status: 'cancelled',
      execution_cost_credits: 0,
    });
    // The refresh the request started goes on, and the view gets its new version.
    expect((await waitUntilFinished(host, refresh.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_joined_up'));
    expect(view.current_execution_id).toBe(refresh.execution_id);
    expect(view.last_execution_ids).toEqual([refresh.execution_id, made.execution_id]);
  });

  it("does not join a refresh that read its dependencies' old versions: it runs its own", async () => {
    const create = async (sql: string) =>
      (await bodyOf(await host.call('/v1/query', { json: { name: 'fresh', query_sql: sql } })))
        .query_id as number;
    const upsert = async (name: string, sql: string) => {
      const made = await bodyOf(
        await host.call('/v1/materialized-views', { json: { name, query_id: await create(sql) } }),
      );
      await waitUntilFinished(host, made.execution_id);
    };
    await upsert('result_fresh_up', 'select 1 as v');
    await upsert('result_fresh_mid', 'select max(v) + 1 as w from mv.local.result_fresh_up');
    const report = await create('select w from mv.local.result_fresh_mid');
    // A refresh of the middle view still queued, submitted before the pipeline refreshes the view
    // it reads (as a workflow leaves it while it waits for a slot): it would read the old version.
    const early = await storeExecution(host, new Date(), {
      materializedViewName: 'mv.local.result_fresh_mid',
    });
    await host.services.materializedViews.recordRefresh('mv.local.result_fresh_mid', early.executionId);
    const run = await bodyOf(await host.call(`/v1/query/${report}/pipeline/execute`, { method: 'POST' }));
    const status = await bodyOf(
      await host.call(`/v1/pipelines/executions/${run.pipeline_execution_id}/status?max_wait_ms=20000`),
    );
    expect(status.status).toBe('completed');
    const mid = status.node_executions
      .map((node: Json) => node.materialized_view_refresh_status)
      .find((node: Json | undefined) => node?.name === 'mv.local.result_fresh_mid');
    expect(mid.shared_refresh).toBeUndefined();
    expect(mid.execution_id).not.toBe(early.executionId);
    expect((await host.services.executions.get(early.executionId))?.state).toBe('QUERY_STATE_PENDING');
    await host.call(`/v1/execution/${early.executionId}/cancel`, { method: 'POST' });
  });

  it('ends a cancelled run at once when a node follows a refresh that is still queued', async () => {
    const viewQuery = (
      await bodyOf(await host.call('/v1/query', { json: { name: 'queued', query_sql: 'select 3 as q' } }))
    ).query_id as number;
    const made = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_queued_up', query_id: viewQuery } }),
    );
    await waitUntilFinished(host, made.execution_id);
    const report = (
      await bodyOf(
        await host.call('/v1/query', {
          json: { name: 'q', query_sql: 'select q from mv.local.result_queued_up' },
        }),
      )
    ).query_id as number;
    // A refresh of the view waiting in the queue (as its workflow leaves it while it waits for a slot).
    const queued = await storeExecution(host, new Date(), {
      materializedViewName: 'mv.local.result_queued_up',
    });
    await host.services.materializedViews.recordRefresh('mv.local.result_queued_up', queued.executionId);
    const workflows = host.services.orchestrator as LocalStepFunctions;
    const before = workflows.activeCount;
    const run = await bodyOf(await host.call(`/v1/query/${report}/pipeline/execute`, { method: 'POST' }));
    const status = await statusOnceFollowing(host, run.pipeline_execution_id);
    expect(status.node_executions[0].materialized_view_refresh_status).toMatchObject({
      execution_id: queued.executionId,
      shared_refresh: true,
    });
    await host.call(`/v1/pipelines/executions/${run.pipeline_execution_id}/cancel`, { method: 'POST' });
    expect((await pipelineStatus(host, run.pipeline_execution_id, 10_000)).status).toBe('cancelled');
    // The run's workflow ends within a check, not when the refresh it followed does.
    for (let i = 0; i < 250 && workflows.activeCount > before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(workflows.activeCount).toBe(before);
    expect((await host.services.executions.get(queued.executionId))?.state).toBe('QUERY_STATE_PENDING');
    await host.call(`/v1/execution/${queued.executionId}/cancel`, { method: 'POST' });
  });
});

function pipelineStatus(host: TestHost, pipelineExecutionId: string, waitMs = 0): Promise<Json> {
  return host
    .call(`/v1/pipelines/executions/${pipelineExecutionId}/status?max_wait_ms=${waitMs}`)
    .then(bodyOf);
}

/** The run's status once its first node has started and says which execution it follows. */
async function statusOnceFollowing(host: TestHost, pipelineExecutionId: string): Promise<Json> {
  let status = await pipelineStatus(host, pipelineExecutionId);
  for (let i = 0; i < 200 && !status.node_executions[0].materialized_view_refresh_status.execution_id; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    status = await pipelineStatus(host, pipelineExecutionId);
  }
  return status;
}
