import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';
import { runSmoke } from './smoke';

/** CI runs the deployed-stack smoke check against the local host: same requests, same answers. */
describe('npm run smoke against the local host', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(async () => host?.stop());

  it('passes every step and cleans up after itself', async () => {
    const lines: string[] = [];
    await runSmoke({
      baseUrl: host.baseUrl,
      apiKey: host.apiKey,
      timeoutMs: 60_000,
      log: (line) => lines.push(line),
    });
    expect(lines.map((line) => line.replace(/ \(\d+ ms\)$/, ''))).toEqual([
      'ok    catalog search finds dex.trades',
      'ok    run a query',
      'ok    page its result (2 pages of 1 row)',
      'ok    return arrays and rows as JSON',
      'ok    create and refresh a materialized view',
      'ok    run a two-node pipeline (view refresh → report)',
      'ok    upload a table (CSV, then NDJSON) and read it back by SQL',
      'ok    MCP: listBlockchains, searchTables, getUsage',
    ]);
    const views = await bodyOf(await host.call('/v1/materialized-views'));
    expect(views.materialized_views).toEqual([]);
    expect((await bodyOf(await host.call('/v1/uploads'))).tables).toEqual([]);
  }, 120_000);

  it('fails on the first broken step and says which', async () => {
    const lines: string[] = [];
    await expect(
      runSmoke({ baseUrl: host.baseUrl, apiKey: 'osk_wrong_key', log: (line) => lines.push(line) }),
    ).rejects.toThrow(/401/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^FAIL {2}catalog search finds dex.trades: POST \/v1\/datasets\/search answered 401/,
    );
  });
});
