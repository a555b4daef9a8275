import { DuneClient } from '@duneanalytics/client-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { endpointViewName } from '../../functions/core/materialized-views';
import { fetchPointedAt } from '../support/dune-sdk';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

/**
 * Custom endpoints (Dune's `GET /v1/endpoints/{handle}/{slug}/results`, the Dune SDK's
 * `client.custom.getResults`): each serves the current version of its owner's materialized view.
 */
describe('custom endpoints: a materialized view served at /v1/endpoints/{handle}/{slug}/results', () => {
  let host: TestHost;
  let otherKey: string;
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'reader');
    vi.stubGlobal('fetch', fetchPointedAt(host.baseUrl, realFetch));
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await host?.stop();
  });

  /** A view of `sql` named `name`, refreshed once. */
  async function view(name: string, sql: string, isPrivate: boolean) {
    const query = await bodyOf(
      await host.call('/v1/query', { json: { name, query_sql: sql, is_private: isPrivate } }),
    );
    const upsert = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: { name, query_id: query.query_id, is_private: isPrivate },
      }),
    );
    expect((await waitUntilFinished(host, upsert.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    return upsert.execution_id as string;
  }

  it("serves the view's current version through Dune's SDK, paged, filtered and sorted", async () => {
    const executionId = await view(
      'result_chain_counts',
      'select blockchain, count(*) as trades from dex.trades group by 1',
      false,
    );
    const client = new DuneClient(host.apiKey);
    const page = await client.custom.getResults({ handle: 'local', slug: 'chain-counts', limit: 2 });
    expect(page).toMatchObject({
      execution_id: executionId,
      state: 'QUERY_STATE_COMPLETED',
      is_execution_finished: true,
      next_offset: 2,
      result: { metadata: { column_names: ['blockchain', 'trades'], total_row_count: 3 } },
    });
    expect(page.result?.rows).toHaveLength(2);
    // next_uri leads on from the endpoint itself.
    expect(page.next_uri).toMatch(/\/v1\/endpoints\/local\/chain-counts\/results\?.*offset=2/);

    // Another account reads a public view's endpoint; the options work as on any results read.
    const sorted = await new DuneClient(otherKey).custom.getResults({
      handle: 'local',
      slug: 'result_chain_counts',
      sort_by: 'blockchain desc',
      columns: 'blockchain',
    });
    expect(sorted.result?.rows).toEqual([
      { blockchain: 'ethereum' },
      { blockchain: 'base' },
      { blockchain: 'arbitrum' },
    ]);
    const filtered = await bodyOf(
      await host.call("/v1/endpoints/local/chain_counts/results?filters=blockchain%20%3D%20'base'"),
    );
    expect(filtered.result.rows).toEqual([{ blockchain: 'base', trades: expect.any(Number) }]);
  });

  it('follows refreshes: a reader sees the new version once it is published', async () => {
    const first = await view('result_versioned_endpoint', 'select 1 as version', false);
    const query = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_versioned_endpoint'));
    // The view names the endpoint that serves it.
    expect(query.endpoint_path).toBe('/v1/endpoints/local/versioned_endpoint/results');
    expect((await bodyOf(await host.call(query.endpoint_path))).execution_id).toBe(first);
    await host.call(`/v1/query/${query.query_id}`, {
      method: 'PATCH',
      json: { query_sql: 'select 2 as version' },
    });
    const refresh = await bodyOf(
      await host.call('/v1/materialized-views/mv.local.result_versioned_endpoint/refresh', {
        method: 'POST',
      }),
    );
    expect((await waitUntilFinished(host, refresh.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const read = await bodyOf(await host.call('/v1/endpoints/local/versioned-endpoint/results'));
    expect(read.execution_id).not.toBe(first);
    expect(read.result.rows).toEqual([{ version: 2 }]);
  });

  it("keeps a private view's endpoint from other accounts and says what is missing", async () => {
    await view('result_private_counts', 'select 7 as n', true);
    expect((await bodyOf(await host.call('/v1/endpoints/local/private-counts/results'))).result.rows).toEqual(
      [{ n: 7 }],
    );
    const hidden = await host.call('/v1/endpoints/local/private-counts/results', { apiKey: otherKey });
    expect(hidden.status).toBe(404);
    // Not a name the caller could create it under (that would be mv.reader.result_private_counts).
    expect((await bodyOf(hidden)).error).toBe(
      'Custom endpoint local/private-counts not found: it serves the materialized view mv.local.result_private_counts, which does not exist or is private to local; only that account can create it or make it public.',
    );
    // The SDK surfaces the same message.
    await expect(
      new DuneClient(otherKey).custom.getResults({ handle: 'local', slug: 'private-counts' }),
    ).rejects.toThrow(/does not exist or is private/);

    const missing = await host.call('/v1/endpoints/local/no-such-view/results');
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error).toBe(
      'Custom endpoint local/no-such-view not found: it serves the materialized view mv.local.result_no_such_view, which does not exist. Create it with POST /v1/materialized-views {"name": "result_no_such_view", "query_id": …}.',
    );
    expect((await host.call('/v1/endpoints/nobody/chain-counts/results')).status).toBe(404);
  });

  it('refuses a slug that cannot name a view and malformed result options with a 400', async () => {
    for (const path of [
      '/v1/endpoints/local/Bad%20Slug!/results',
      '/v1/endpoints/local/x_/results',
      '/v1/endpoints/local/chain-counts/results?limit=-1',
      '/v1/endpoints/local/chain-counts/results?sample_count=2&limit=1',
      '/v1/endpoints/local/chain-counts/results?unknown=1',
    ]) {
      const response = await host.call(path);
      expect(response.status, path).toBe(400);
      expect(typeof (await bodyOf(response)).error, path).toBe('string');
    }
  });

  it('maps a slug to its view name', () => {
    expect(endpointViewName('local', 'daily-volume')).toBe('mv.local.result_daily_volume');
    expect(endpointViewName('Local', 'result_daily_volume')).toBe('mv.local.result_daily_volume');
    expect(endpointViewName('local', 'Daily_Volume')).toBe('mv.local.result_daily_volume');
    expect(endpointViewName('local', 'daily volume')).toBeUndefined();
    expect(endpointViewName('local', 'trailing-')).toBeUndefined();
    expect(endpointViewName('local', 'x'.repeat(130))).toBeUndefined();
  });
});
