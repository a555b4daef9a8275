import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

/** Issue 12, finding 5: timestamps beyond JavaScript's range completed, then every read answered 500. */
const SQL =
  "select timestamp '276000-01-01 00:00:00' as t, date_add('year', -292000, timestamp '2000-01-01 00:00:00') as low, 1 as v " +
  "union all select timestamp '2026-01-01 00:00:00', timestamp '2026-01-02 00:00:00', 2";

describe('values beyond what JavaScript dates hold, through every read', () => {
  let host: TestHost;
  let queryId: number;
  let executionId: string;

  beforeAll(async () => {
    host = await startTestHost();
    const created = await bodyOf(
      await host.call('/v1/query', { json: { name: 'far future', query_sql: SQL } }),
    );
    queryId = created.query_id;
    const run = await bodyOf(await host.call(`/v1/query/${queryId}/execute`, { method: 'POST' }));
    executionId = run.execution_id;
    expect((await waitUntilFinished(host, executionId, 30_000)).state).toBe('QUERY_STATE_COMPLETED');
  });
  afterAll(() => host?.stop());

  it('answers results, CSV, samples and the latest result without a 500', async () => {
    for (const path of [
      `/v1/execution/${executionId}/results`,
      `/v1/execution/${executionId}/results?sample_count=1`,
      `/v1/query/${queryId}/results`,
    ]) {
      const response = await host.call(path);
      expect(response.status, path).toBe(200);
      const rows = (await bodyOf(response)).result.rows;
      expect(rows.length, path).toBeGreaterThan(0);
    }
    const page = await bodyOf(await host.call(`/v1/execution/${executionId}/results`));
    expect(page.result.rows[0]).toEqual({
      t: '276000-01-01 00:00:00.000 UTC',
      low: '-290000-01-01 00:00:00.000 UTC',
      v: 1,
    });
    const csv = await host.call(`/v1/query/${queryId}/results/csv`);
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain('276000-01-01 00:00:00.000 UTC,-290000-01-01 00:00:00.000 UTC,1');
  });

  it('draws a chart over them', async () => {
    const created = await host.call(`/v1/query/${queryId}/visualizations`, {
      json: {
        name: 'far future',
        type: 'chart',
        options: { globalSeriesType: 'line', columnMapping: { t: 'x', v: 'y' } },
      },
    });
    expect(created.status).toBe(200);
    const { id } = await bodyOf(created);
    for (const format of ['svg', 'png']) {
      const image = await host.call(`/v1/visualizations/${id}/image.${format}`);
      expect(image.status, format).toBe(200);
    }
  });
});
