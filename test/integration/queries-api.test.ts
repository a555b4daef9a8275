import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

describe('saved queries over REST', () => {
  let host: TestHost;
  let otherKey: string;
  beforeAll(async () => {
    host = await startTestHost();
    otherKey = await newAccountKey(host, 'someone_else');
  });
  afterAll(() => host?.stop());

  const create = async (body: Record<string, unknown>) => {
    const response = await host.call('/v1/query', { json: body });
    expect(response.status).toBe(200);
    return (await bodyOf(response)).query_id as number;
  };

  it('creates, reads, updates (version and tags) and lists queries with integer ids', async () => {
    const id = await create({
      name: 'Top pairs',
      query_sql: 'select token_pair, count(*) from dex.trades where blockchain = {{chain}} group by 1',
      parameters: [{ key: 'chain', type: 'enum', value: 'ethereum', enumOptions: ['ethereum', 'base'] }],
      tags: ['dex', 'dex'],
    });
    expect(Number.isInteger(id)).toBe(true);
    const read = await bodyOf(await host.call(`/v1/query/${id}`));
    expect(read).toMatchObject({
      query_id: id,
      name: 'Top pairs',
      owner: 'local',
      version: 1,
      tags: ['dex'],
      is_private: false,
    });

    const patched = await host.call(`/v1/query/${id}`, {
      method: 'PATCH',
      json: { tags: ['volume'], description: 'by pair' },
    });
    expect(await bodyOf(patched)).toEqual({ query_id: id, version: 2 });
    expect(await bodyOf(await host.call(`/v1/query/${id}`))).toMatchObject({
      tags: ['volume'],
      description: 'by pair',
      version: 2,
    });

    const second = await create({ name: 'Another', query_sql: 'select 1' });
    const list = await bodyOf(await host.call('/v1/queries?limit=1'));
    expect(list.total).toBeGreaterThanOrEqual(2);
    expect(list.queries).toHaveLength(1);
    expect(list.queries[0].id).toBe(second);
    expect(list.next_offset).toBe(1);
  });

  it('archived queries cannot be run or edited until unarchived', async () => {
    const id = await create({ name: 'To archive', query_sql: 'select 1' });
    expect(await bodyOf(await host.call(`/v1/query/${id}/archive`, { method: 'POST' }))).toMatchObject({
      is_archived: true,
    });
    const run = await host.call(`/v1/query/${id}/execute`, { method: 'POST' });
    expect(run.status).toBe(403);
    expect((await bodyOf(run)).error).toMatch(/archived.*unarchive/);
    expect((await host.call(`/v1/query/${id}`, { method: 'PATCH', json: { name: 'x' } })).status).toBe(403);
    await host.call(`/v1/query/${id}/unarchive`, { method: 'POST' });
    expect((await host.call(`/v1/query/${id}`, { method: 'PATCH', json: { name: 'x' } })).status).toBe(200);
  });

  it("hides another account's private query (404) and protects public ones from edits (403)", async () => {
    const id = await create({ name: 'Mine', query_sql: 'select 1', is_private: true });
    const asOther = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      host.call(path, { ...init, apiKey: otherKey });
    expect((await asOther(`/v1/query/${id}`)).status).toBe(404);
    expect((await asOther(`/v1/query/${id}/execute`, { method: 'POST' })).status).toBe(404);
    await host.call(`/v1/query/${id}/unprivate`, { method: 'POST' });
    expect((await asOther(`/v1/query/${id}`)).status).toBe(200);
    const edit = await asOther(`/v1/query/${id}`, { method: 'PATCH', json: { name: 'stolen' } });
    expect(edit.status).toBe(403);
    expect((await asOther(`/v1/query/${id}/private`, { method: 'POST' })).status).toBe(403);
  });

  it.each([
    [{ query_sql: 'select 1' }, /body\.name/],
    [{ name: 'x', query_sql: 'select {{a}}' }, /uses \{\{a\}\} but no parameter "a" is declared/],
    [
      { name: 'x', query_sql: 'select {{a}}', parameters: [{ key: 'a', type: 'number', value: 'ten' }] },
      /"a" must be a number/,
    ],
    [
      { name: 'x', query_sql: 'select 1', parameters: [{ key: 'a', type: 'color', value: '1' }] },
      /parameters\.0\.type/,
    ],
    [{ name: 'x', query_sql: 'select 1', owner: 'me' }, /Unrecognized key.*owner/],
  ])('rejects bad create bodies: %j', async (body, message) => {
    const response = await host.call('/v1/query', { json: body });
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error).toMatch(message);
  });

  it('rejects bad ids and empty patches', async () => {
    expect((await host.call('/v1/query/abc')).status).toBe(400);
    expect((await host.call('/v1/query/999999')).status).toBe(404);
    const id = await create({ name: 'x', query_sql: 'select 1' });
    const empty = await host.call(`/v1/query/${id}`, { method: 'PATCH', json: {} });
    expect(empty.status).toBe(400);
    expect((await bodyOf(empty)).error).toMatch(/nothing to change/i);
    const mismatch = await host.call(`/v1/query/${id}`, {
      method: 'PATCH',
      json: { query_id: id + 1, name: 'y' },
    });
    expect(mismatch.status).toBe(400);
  });
});
