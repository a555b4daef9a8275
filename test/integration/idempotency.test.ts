import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

describe('Idempotency-Key: a resent request answers as the first did, without running again', () => {
  let host: TestHost;
  let otherKey: string;
  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'retrier');
  });
  afterAll(() => host?.stop());

  const post = (path: string, json: unknown, key?: string, apiKey?: string) =>
    host.call(path, {
      json,
      headers: key === undefined ? {} : { 'Idempotency-Key': key },
      ...(apiKey ? { apiKey } : {}),
    });
  const listTotal = async () => (await bodyOf(await host.call('/v1/queries?limit=1'))).total as number;

  it('replays the answer of a run it already started, and starts a new one for a new key', async () => {
    const first = await post('/v1/sql/execute', { sql: 'select 1 as one' }, 'run-1');
    const again = await post('/v1/sql/execute', { sql: 'select 1 as one' }, 'run-1');
    const other = await post('/v1/sql/execute', { sql: 'select 1 as one' }, 'run-2');
    const plain = await post('/v1/sql/execute', { sql: 'select 1 as one' });
    const ids = await Promise.all(
      [first, again, other, plain].map(async (r) => (await bodyOf(r)).execution_id),
    );
    expect([first, again, other, plain].map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(ids[1]).toBe(ids[0]);
    expect(new Set([ids[0], ids[2], ids[3]]).size).toBe(3);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).toBeTruthy();
  });

  it('creates one query for a resent create, whatever the order of its fields', async () => {
    const before = await listTotal();
    const a = await bodyOf(
      await post('/v1/query', { name: 'once', query_sql: 'select 2 as two' }, 'create-1'),
    );
    const b = await bodyOf(
      await post('/v1/query', { query_sql: 'select 2 as two', name: 'once' }, 'create-1'),
    );
    expect(b.query_id).toBe(a.query_id);
    expect(await listTotal()).toBe(before + 1);
  });

  it('starts one pipeline for a resent pipeline run', async () => {
    const queryId = (await bodyOf(await post('/v1/query', { name: 'p', query_sql: 'select 3 as three' })))
      .query_id;
    const runs = await Promise.all(
      [0, 1].map(async () =>
        bodyOf(await post(`/v1/query/${queryId}/pipeline/execute`, { performance: 'medium' }, 'pipe-1')),
      ),
    );
    // Sent together: one runs; the other is told to wait (409) or gets the same run.
    const ids = runs.map((run) => run.pipeline_execution_id).filter(Boolean);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ids).size).toBe(1);
    for (const run of runs.filter((r) => !r.pipeline_execution_id)) {
      expect(run.error).toMatch(/still being processed; retry in a few seconds/);
    }
    const later = await bodyOf(
      await post(`/v1/query/${queryId}/pipeline/execute`, { performance: 'medium' }, 'pipe-1'),
    );
    expect(later.pipeline_execution_id).toBe(ids[0]);
  });

  it('refuses the same key for another request, keeps accounts apart, and checks the key', async () => {
    await post('/v1/sql/execute', { sql: 'select 4 as four' }, 'shared-key');
    const changed = await post('/v1/sql/execute', { sql: 'select 5 as five' }, 'shared-key');
    expect(changed.status).toBe(400);
    expect((await bodyOf(changed)).error).toBe(
      'Idempotency-Key "shared-key" was used for a different request in the last 24 hours; send a new key with a new request.',
    );
    const elsewhere = await post('/v1/sql/execute', { sql: 'select 5 as five' }, 'shared-key', otherKey);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    for (const bad of ['has space', 'x'.repeat(256), 'é']) {
      const response = await post('/v1/sql/execute', { sql: 'select 1' }, bad);
      expect(response.status, bad).toBe(400);
      expect((await bodyOf(response)).error).toMatch(/1-255 visible ASCII characters/);
    }
  });

  it('gives the key back when the request fails, so a corrected retry runs', async () => {
    const queryId = (await bodyOf(await post('/v1/query', { name: 'shelved', query_sql: 'select 6 as six' })))
      .query_id;
    expect((await host.call(`/v1/query/${queryId}/archive`, { method: 'POST' })).status).toBe(200);
    const refused = await post(`/v1/query/${queryId}/execute`, {}, 'after-fix');
    expect(refused.status).toBe(403);
    expect((await host.call(`/v1/query/${queryId}/unarchive`, { method: 'POST' })).status).toBe(200);
    const ran = await post(`/v1/query/${queryId}/execute`, {}, 'after-fix');
    expect(ran.status).toBe(200);
    expect((await bodyOf(ran)).execution_id).toMatch(/^01/);
  });

  it('takes over a claim whose request died, once it is stale', async () => {
    const long = new Date(Date.now() - 120_000);
    await host.services.idempotency.claim(
      {
        accountId: host.accountId,
        key: 'orphaned',
        fingerprint: 'a request that never answered',
        state: 'in_progress',
        createdAt: long.toISOString(),
        expiresAt: new Date(long.getTime() + 86_400_000).toISOString(),
      },
      60_000,
    );
    const response = await post('/v1/sql/execute', { sql: 'select 7 as seven' }, 'orphaned');
    expect(response.status).toBe(200);
  });
});
