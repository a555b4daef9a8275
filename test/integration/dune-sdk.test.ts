import { DuneClient, QueryParameter } from '@duneanalytics/client-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchPointedAt } from '../support/dune-sdk';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

// Poll quickly: the SDK's default is one status call per second.
const fast = { pingFrequency: 0.05 };

const VOLUME_SQL =
  'select count(*) as trades, sum(amount_usd) as volume from dex.trades where blockchain = {{chain}} and amount_usd > {{min_usd}}';

describe('the official Dune TypeScript SDK against the local host', () => {
  let host: TestHost;
  let client: DuneClient;
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    host = await startTestHost();
    vi.stubGlobal('fetch', fetchPointedAt(host.baseUrl, realFetch));
    client = new DuneClient(host.apiKey);
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await host?.stop();
  });

  /** The same numbers computed from literal SQL, to check what the parameters bound to. */
  async function literalVolume(chain: string, minUsd: number) {
    const result = await client.runSql({
      query_sql: `select count(*) as trades, sum(amount_usd) as volume from dex.trades where blockchain = '${chain}' and amount_usd > ${minUsd}`,
      archiveAfter: true,
      opts: fast,
    });
    return result.result!.rows[0]!;
  }

  it('creates, reads, updates, archives and unarchives a query with SDK parameters', async () => {
    const queryId = await client.query.createQuery({
      name: 'Volume by chain',
      query_sql: VOLUME_SQL,
      query_parameters: [QueryParameter.text('chain', 'ethereum'), QueryParameter.number('min_usd', 5)],
    });
    expect(Number.isInteger(queryId)).toBe(true);

    const read = await client.query.readQuery(queryId);
    expect(read).toMatchObject({
      query_id: queryId,
      name: 'Volume by chain',
      query_sql: VOLUME_SQL,
      is_private: false,
      is_archived: false,
      version: 1,
      tags: [],
    });
    // The SDK sends bare values; their types come from the values, as Dune keeps them (strings).
    expect(read.parameters).toEqual([
      { key: 'chain', type: 'text', value: 'ethereum' },
      { key: 'min_usd', type: 'number', value: '5' },
    ]);

    expect(
      await client.query.updateQuery(queryId, {
        description: 'trades above a size',
        query_sql: VOLUME_SQL,
        tags: ['sdk'],
        query_parameters: [QueryParameter.number('min_usd', 10), QueryParameter.text('chain', 'base')],
      }),
    ).toBe(queryId);
    const updated = await client.query.readQuery(queryId);
    expect(updated).toMatchObject({ version: 2, description: 'trades above a size', tags: ['sdk'] });
    expect(updated.parameters).toEqual([
      { key: 'min_usd', type: 'number', value: '10' },
      { key: 'chain', type: 'text', value: 'base' },
    ]);

    expect(await client.query.makePrivate(queryId)).toBe(queryId);
    expect(await client.query.makePublic(queryId)).toBe(queryId);
    expect(await client.query.archiveQuery(queryId)).toBe(true);
    await expect(client.exec.executeQuery(queryId)).rejects.toThrow(/403.*archived/);
    expect(await client.query.unarchiveQuery(queryId)).toBe(false);
  });

  it('runQuery binds the parameters it sends; getLatestResult finds the run with those values', async () => {
    const queryId = await client.query.createQuery({
      name: 'Volume by chain',
      query_sql: VOLUME_SQL,
      query_parameters: [QueryParameter.text('chain', 'ethereum'), QueryParameter.number('min_usd', 5)],
    });
    const onBase = [QueryParameter.text('chain', 'base'), QueryParameter.number('min_usd', 100)];
    const run = await client.runQuery({ queryId, query_parameters: onBase, opts: fast });
    expect(run.state).toBe('QUERY_STATE_COMPLETED');
    expect(run.result!.metadata.column_names).toEqual(['trades', 'volume']);
    const expected = await literalVolume('base', 100);
    expect(Number(expected.trades)).toBeGreaterThan(0);
    expect(run.result!.rows[0]).toEqual(expected);

    const withDefaults = await client.runQuery({ queryId, opts: fast });
    expect(withDefaults.result!.rows[0]).toEqual(await literalVolume('ethereum', 5));
    expect(withDefaults.result!.rows[0]).not.toEqual(run.result!.rows[0]);

    // The latest run used the defaults: asking for it by those values finds it...
    const latest = await client.getLatestResult({
      queryId,
      query_parameters: [QueryParameter.text('chain', 'ethereum')],
    });
    expect(latest.execution_id).toBe(withDefaults.execution_id);
    expect(latest.result!.rows).toEqual(withDefaults.result!.rows);
    // ...asking by other values says to run it with them.
    await expect(client.getLatestResult({ queryId, query_parameters: onBase })).rejects.toThrow(
      /404.*other parameter values than chain=base, min_usd=100/,
    );
  });

  it('runSql creates, runs and archives a query', async () => {
    const result = await client.runSql({
      query_sql: 'select symbol, count(*) as minutes from prices.usd group by symbol order by symbol',
      archiveAfter: true,
      isPrivate: true,
      opts: fast,
    });
    expect(result.state).toBe('QUERY_STATE_COMPLETED');
    expect(result.result!.rows.length).toBeGreaterThan(1);
    const read = await client.query.readQuery(result.query_id);
    expect(read).toMatchObject({ is_archived: true, is_private: true, name: 'API Query' });
  });

  it('runQuery at its default pace (a status call a second) sees a quick run end with its first status call', async () => {
    const queryId = await client.query.createQuery({
      name: 'WETH minutes',
      query_sql: "select count(*) as minutes from prices.usd where symbol = 'WETH'",
      is_private: true,
    });
    const statusCalls: string[] = [];
    const pointed = globalThis.fetch;
    vi.stubGlobal('fetch', (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (/\/execution\/[^/]+\/status/.test(url)) statusCalls.push(url);
      return pointed(input, init);
    });
    try {
      const result = await client.runQuery({ queryId });
      expect(result.state).toBe('QUERY_STATE_COMPLETED');
      expect(result.result!.rows[0]!.minutes).toBeGreaterThan(0);
    } finally {
      vi.stubGlobal('fetch', pointed);
    }
    // The read waited for the end instead of answering PENDING and leaving the SDK to sleep a second.
    expect(statusCalls).toHaveLength(1);
  });

  it('pages results, as JSON through next_uri and as CSV through the x-dune-next-* headers', async () => {
    const queryId = await client.query.createQuery({
      name: 'Pairs',
      query_sql:
        'select token_pair, count(*) as trades, sum(amount_usd) as volume from dex.trades group by token_pair order by token_pair',
    });
    const whole = await client.runQuery({ queryId, opts: fast });
    const total = whole.result!.metadata.total_row_count;
    expect(total).toBeGreaterThan(7);
    expect(whole.result!.rows).toHaveLength(total);

    const first = await client.exec.getExecutionResults(whole.execution_id, { limit: 3, offset: 0 });
    expect(first.result!.rows).toEqual(whole.result!.rows.slice(0, 3));
    expect(first.next_offset).toBe(3);

    // getLatestResult follows next_uri until the last page.
    const paged = await client.getLatestResult({ queryId, opts: { batchSize: 3 } });
    expect(paged.result!.rows).toEqual(whole.result!.rows);
    expect(paged.result!.metadata.row_count).toBe(total);

    const options = {
      columns: ['token_pair', 'trades'],
      sort_by: ['trades desc', 'token_pair'],
      filters: 'trades > 0',
      allow_partial_results: true,
      ignore_max_datapoints_per_request: true,
    };
    const sorted = await client.exec.getExecutionResults(whole.execution_id, options);
    expect(sorted.result!.metadata.column_names).toEqual(['token_pair', 'trades']);
    const counts = sorted.result!.rows.map((row) => Number(row.trades));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    const sample = await client.exec.getExecutionResults(whole.execution_id, { sample_count: 2 });
    expect(sample.state).toBe('QUERY_STATE_COMPLETED');

    const csv = await client.exec.getLastResultCSV(queryId, { limit: 4 });
    const lines = csv.data.trimEnd().split(/\r?\n/);
    expect(lines[0]).toBe('token_pair,trades,volume');
    expect(lines).toHaveLength(total + 1);
    expect(lines[1]!.split(',')[0]).toBe(whole.result!.rows[0]!.token_pair);

    const onePage = await client.exec.getResultCSV(whole.execution_id, { limit: 2 });
    expect(onePage.next_offset).toBe(2);
    expect(onePage.next_uri).toMatch(
      new RegExp(`^${host.baseUrl}/v1/execution/${whole.execution_id}/results/csv\\?`),
    );
  });

  it('runs a query pipeline and reads its status', async () => {
    const mvQuery = (
      await bodyOf(
        await host.call('/v1/query', {
          json: {
            name: 'daily volume',
            query_sql: 'select blockchain, sum(amount_usd) as volume from dex.trades group by blockchain',
          },
        }),
      )
    ).query_id as number;
    const upsert = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name: 'result_sdk_volume', query_id: mvQuery } }),
    );
    expect((await waitUntilFinished(host, upsert.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const queryId = await client.query.createQuery({
      name: 'top chain',
      query_sql: 'select blockchain from mv.local.result_sdk_volume order by volume desc limit 1',
    });

    const started = await client.exec.executeQueryPipeline(queryId);
    expect(started.pipeline_execution_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    let status = await client.pipeline.getPipelineStatus(started.pipeline_execution_id);
    const deadline = Date.now() + 30_000;
    while (!['completed', 'failed', 'cancelled'].includes(status.status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await client.pipeline.getPipelineStatus(started.pipeline_execution_id);
    }
    expect(status.status).toBe('completed');
    const queryNode = status.node_executions.find((node) => node.query_execution_status);
    expect(queryNode!.query_execution_status).toMatchObject({ query_id: queryId, status: 'completed' });
    const rows = await client.exec.getExecutionResults(queryNode!.query_execution_status.execution_id);
    expect(rows.result!.rows).toHaveLength(1);
  });

  it('reads usage and cancels an execution', async () => {
    const usage = await client.usage.getUsage();
    expect(usage.billing_periods[0]!.credits_used).toBeGreaterThan(0);
    expect(typeof usage.bytes_allowed).toBe('number');
    expect(typeof usage.private_queries).toBe('number');

    const queryId = await client.query.createQuery({
      name: 'slow',
      query_sql:
        'select count(*) as n from dex.trades a, dex.trades b, dex.trades c where a.amount_usd + b.amount_usd > c.amount_usd',
    });
    const { execution_id } = await client.exec.executeQuery(queryId);
    expect(await client.exec.cancelExecution(execution_id)).toBe(true);
    expect((await client.exec.getExecutionStatus(execution_id)).state).toBe('QUERY_STATE_CANCELLED');
  });
});
