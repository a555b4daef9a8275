import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

/** Request shapes the Dune API documents and its clients send, besides the TypeScript SDK's own. */
describe('Dune request shapes over REST', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const SQL = 'select {{n}} + 1 as next, {{label}} as label';
  const create = async (body: Record<string, unknown>) => {
    const response = await host.call('/v1/query', { json: body });
    const json = await bodyOf(response);
    expect(response.status, JSON.stringify(json)).toBe(200);
    return json.query_id as number;
  };
  const run = async (path: string, body: Record<string, unknown> = {}) => {
    const response = await host.call(path, { json: body });
    const json = await bodyOf(response);
    expect(response.status, JSON.stringify(json)).toBe(200);
    await waitUntilFinished(host, json.execution_id);
    return bodyOf(await host.call(`/v1/execution/${json.execution_id}/results`));
  };

  it('declares parameters keyed by key (API, Python SDK) or name (TypeScript SDK), under either field', async () => {
    const byKey = await create({
      name: 'python style',
      query_sql: SQL,
      parameters: [
        { key: 'n', type: 'number', value: '1' },
        { key: 'label', type: 'list', value: 'a' },
      ],
    });
    const byName = await create({
      name: 'sdk objects',
      query_sql: SQL,
      query_parameters: [
        { name: 'n', type: 'number', value: '1' },
        { name: 'label', type: 'text', value: 'a' },
      ],
    });
    expect((await bodyOf(await host.call(`/v1/query/${byKey}`))).parameters).toEqual([
      { key: 'n', type: 'number', value: '1' },
      { key: 'label', type: 'enum', value: 'a' },
    ]);
    expect((await bodyOf(await host.call(`/v1/query/${byName}`))).parameters[0]).toEqual({
      key: 'n',
      type: 'number',
      value: '1',
    });
    const patched = await host.call(`/v1/query/${byName}`, {
      method: 'PATCH',
      json: {
        parameters: [
          { name: 'n', type: 'number', value: '2' },
          { key: 'label', type: 'text', value: 'b' },
        ],
      },
    });
    expect(patched.status).toBe(200);
    // An enum without options (the Python SDK's enum_type) takes any value.
    expect(
      (await run(`/v1/query/${byKey}/execute`, { query_parameters: { label: 'zz' } })).result.rows,
    ).toEqual([{ next: 2, label: 'zz' }]);
  });

  it('refuses unclear declarations with a message saying what to send', async () => {
    const both = await host.call('/v1/query', {
      json: {
        name: 'x',
        query_sql: SQL,
        parameters: [{ key: 'n', type: 'number', value: '1' }],
        query_parameters: { n: '1' },
      },
    });
    expect(both.status).toBe(400);
    expect((await bodyOf(both)).error).toMatch(/send parameters or query_parameters, not both/);
    const nameless = await host.call('/v1/query', {
      json: { name: 'x', query_sql: 'select {{n}}', parameters: [{ type: 'number', value: '1' }] },
    });
    expect(nameless.status).toBe(400);
    expect((await bodyOf(nameless)).error).toMatch(/needs its key \(or name\)/);
    const clash = await host.call('/v1/query', {
      json: { name: 'x', query_sql: 'select {{n}}', parameters: [{ key: 'n', name: 'm', type: 'number' }] },
    });
    expect((await bodyOf(clash)).error).toMatch(/key and name that differ/);
  });

  it('takes execute values as a body object, a list of objects, or params.<name> in the query string', async () => {
    const id = await create({ name: 'values', query_sql: SQL, query_parameters: { n: 1, label: 'a' } });
    expect((await run(`/v1/query/${id}/execute`, { query_parameters: { n: '10' } })).result.rows).toEqual([
      { next: 11, label: 'a' },
    ]);
    expect(
      (
        await run(`/v1/query/${id}/execute`, {
          query_parameters: [{ name: 'label', type: 'text', value: 'b' }],
        })
      ).result.rows,
    ).toEqual([{ next: 2, label: 'b' }]);
    const viaQueryString = await run(`/v1/query/${id}/execute?params.n=20&params.label=c%20d`);
    expect(viaQueryString.result.rows).toEqual([{ next: 21, label: 'c d' }]);

    // The latest result by parameter values, as the SDKs ask for it.
    const latest = await host.call(`/v1/query/${id}/results?params.n=20&allow_partial_results=True`);
    expect(latest.status).toBe(200);
    expect((await bodyOf(latest)).result.rows).toEqual([{ next: 21, label: 'c d' }]);
    const csv = await host.call(`/v1/query/${id}/results/csv?params.n=20`);
    expect(await csv.text()).toMatch(/^next,label\r?\n21,c d/);
    const other = await host.call(`/v1/query/${id}/results?params.n=10`);
    expect(other.status).toBe(404);
    expect((await bodyOf(other)).error).toMatch(/other parameter values than n=10; run it with those values/);

    const unknown = await host.call(`/v1/query/${id}/results?param.n=20`);
    expect(unknown.status).toBe(400);
    expect((await bodyOf(unknown)).error).toMatch(/param\.n/);
    const badValue = await host.call(`/v1/query/${id}/execute?params.n=abc`, { method: 'POST' });
    expect(badValue.status).toBe(400);
    expect((await bodyOf(badValue)).error).toMatch(/"n" must be a number/);

    // Values no run could take are the 400 execute gives, not a 404 that says to run with them.
    for (const [values, message] of [
      ['params.n=abc', /"n" must be a number, got "abc"/],
      ['params.n=1e400', /"n" must be a number, got "1e400"/],
      ['params.nope=1', /Unknown parameter "nope"; this query has parameters "n", "label"/],
    ] as const) {
      const execute = await host.call(`/v1/query/${id}/execute?${values}`, { method: 'POST' });
      const executeAnswer = { status: execute.status, body: await bodyOf(execute) };
      expect(executeAnswer, values).toEqual({ status: 400, body: { error: expect.stringMatching(message) } });
      for (const path of ['results', 'results/csv']) {
        const latestAnswer = await host.call(`/v1/query/${id}/${path}?${values}`);
        expect(
          { status: latestAnswer.status, body: await bodyOf(latestAnswer) },
          `${path} ${values}`,
        ).toEqual(executeAnswer);
      }
    }
  });

  it('pages CSV with both the service and the Dune next-page headers', async () => {
    const id = await create({
      name: 'rows',
      query_sql: 'select x from (values (1), (2), (3)) as t(x) order by x',
    });
    await run(`/v1/query/${id}/execute`);
    const page = await host.call(`/v1/query/${id}/results/csv?limit=2`);
    expect(page.headers.get('x-dune-next-offset')).toBe('2');
    expect(page.headers.get('x-service-next-offset')).toBe('2');
    expect(page.headers.get('x-dune-next-uri')).toBe(page.headers.get('x-service-next-uri'));
  });
});
