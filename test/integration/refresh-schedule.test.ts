import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitSql, waitUntilFinished } from '../support/executions';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

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
});
