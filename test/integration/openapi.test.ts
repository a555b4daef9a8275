/**
 * `GET /v1/openapi.json`: a valid OpenAPI 3.1 document (checked by a real validator) that lists
 * every `/v1` route of the route table with its error responses, and whose schemas are the ones
 * the handlers enforce (a limit the document states is the limit a request meets).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';

describe('GET /v1/openapi.json', () => {
  let host: TestHost;
  let doc: Json;
  beforeAll(async () => {
    host = await startTestHost();
    const response = await host.call('/v1/openapi.json', { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    doc = await bodyOf(response);
  });
  afterAll(async () => host?.stop());

  it('is a valid OpenAPI 3.1 document whose server is the host that answered', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.servers).toEqual([{ url: host.baseUrl }]);
  });

  it('the validator refuses a broken document (the check can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/v1/query'].post.responses = { 200: { content: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('every $ref points at something in the document', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) {
      const target = ref.split('/').reduce((node: Json, key) => node?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('lists every /v1 route of the route table, and only those, with the errors it can return', () => {
    const v1 = routes.filter((route) => route.path.startsWith('/v1/'));
    const documented = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(v1.map((route) => `${route.method} ${route.path}`).sort());
    for (const route of v1) {
      const operation = doc.paths[route.path][route.method.toLowerCase()];
      const where = `${route.method} ${route.path}`;
      const statuses = Object.keys(operation.responses);
      expect(operation.operationId, where).toBe(route.handler);
      expect(statuses, where).toContain('200');
      expect(statuses, where).toEqual(expect.arrayContaining(['429', '500']));
      if (route.public) expect(operation.security, where).toEqual([]);
      else {
        expect(operation.security, where).toBeUndefined();
        expect(statuses, where).toEqual(expect.arrayContaining(['400', '401', '403']));
      }
      if (route.path.includes('{')) expect(statuses, where).toContain('404');
      if (operation.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['400', '413']));
      for (const status of statuses.filter((s) => s !== '200')) {
        expect(operation.responses[status].$ref, `${where} ${status}`).toBe(
          `#/components/responses/Error${status}`,
        );
      }
      const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const pathParameters = (operation.parameters ?? []).filter((p: Json) => p.in === 'path');
      expect(
        pathParameters.map((p: Json) => p.name),
        where,
      ).toEqual(pathNames);
    }
    const errorSchema = doc.components.schemas.Error;
    expect(errorSchema.required).toEqual(['error']);
  });

  it("marks Dune's deprecated paths deprecated, documented as their successors are", () => {
    const operationOf = (route: string) => {
      const [method, path] = route.split(' ') as [string, string];
      return doc.paths[path][method.toLowerCase()];
    };
    const deprecated = routes.filter((route) => route.supersededBy);
    expect(deprecated.length).toBeGreaterThan(0);
    for (const route of routes.filter((candidate) => candidate.path.startsWith('/v1/'))) {
      const where = `${route.method} ${route.path}`;
      const operation = operationOf(where);
      if (!route.supersededBy) {
        expect(operation.deprecated, where).toBeUndefined();
        continue;
      }
      const successor = operationOf(route.supersededBy);
      expect(operation.deprecated, where).toBe(true);
      expect(operation.description, where).toContain(`use \`${route.supersededBy}\``);
      const { operationId, description, deprecated: _, ...rest } = operation;
      const { operationId: successorId, ...successorRest } = successor;
      expect(operationId, where).not.toBe(successorId);
      expect(rest, where).toEqual(successorRest);
    }
  });

  it('declares the three ways to authenticate', () => {
    expect(doc.components.securitySchemes).toEqual({
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-service-api-key' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }]);
  });

  it('states the limits and fields the handlers enforce', async () => {
    const create = doc.paths['/v1/query'].post.requestBody;
    expect(create.required).toBe(true);
    const body = create.content['application/json'].schema;
    expect(body.required).toEqual(['name', 'query_sql']);
    expect(body.additionalProperties).toBe(false);
    const maxName = body.properties.name.maxLength;
    expect(maxName).toBe(300);
    const tooLong = await host.call('/v1/query', {
      json: { name: 'n'.repeat(maxName + 1), query_sql: 'SELECT 1' },
    });
    expect(tooLong.status).toBe(400);
    expect((await bodyOf(tooLong)).error).toMatch(/^body\.name: /);
    const unknown = await host.call('/v1/query', {
      json: { name: 'x', query_sql: 'SELECT 1', colour: 'red' },
    });
    expect(unknown.status).toBe(400);

    // Both forms of declared parameters, as a list or as defaults by name.
    expect(body.properties.parameters.anyOf.map((form: Json) => form.type)).toEqual(['array', 'object']);

    // A body that may be left out is optional; the results query string has the params object.
    expect(doc.paths['/v1/query/{query_id}/execute'].post.requestBody.required).toBe(false);
    const params = doc.paths['/v1/query/{query_id}/results'].get.parameters.find(
      (p: Json) => p.name === 'params',
    );
    expect(params).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
  });

  it('states numeric query parameters as the integers the handlers take, with their bounds', async () => {
    const queryParameters: Json[] = Object.entries(doc.paths as Record<string, Json>).flatMap(
      ([path, operations]) =>
        Object.entries(operations as Record<string, Json>).flatMap(([method, operation]) =>
          (operation.parameters ?? [])
            .filter((p: Json) => p.in === 'query')
            .map((p: Json) => ({ ...p, where: `${method.toUpperCase()} ${path} ${p.name}` })),
        ),
    );
    // A query string carries text: a number the handlers coerce must not be documented by the
    // input side of a pipe (a bare `number`, without the integer and bounds it is checked against).
    expect(queryParameters.filter((p) => p.schema.type === 'number').map((p) => p.where)).toEqual([]);
    const paging = queryParameters.filter((p) => p.name === 'limit' || p.name === 'offset');
    expect(paging.length).toBeGreaterThan(10);
    for (const p of paging) {
      expect(p.schema, p.where).toMatchObject({ type: 'integer', minimum: p.name === 'limit' ? 1 : 0 });
    }

    // What the results endpoint states is what a request meets.
    const path = '/v1/execution/{execution_id}/results';
    const stated = (name: string) =>
      doc.paths[path].get.parameters.find((p: Json) => p.name === name).schema as Json;
    expect([stated('limit'), stated('offset')]).toEqual([
      { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    ]);
    const run = await bodyOf(await host.call('/v1/sql/execute', { json: { sql: 'select 1 as one' } }));
    expect((await waitUntilFinished(host, run.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const status = async (query: string) =>
      (await host.call(`/v1/execution/${run.execution_id}/results?${query}`)).status;
    for (const [query, expected] of [
      [`limit=${stated('limit').minimum}`, 200],
      [`limit=${stated('limit').minimum - 1}`, 400],
      ['limit=1.5', 400],
      [`offset=${stated('offset').minimum}`, 200],
      [`offset=${stated('offset').minimum - 1}`, 400],
      ['offset=0.5', 400],
    ] as const) {
      expect(await status(query), query).toBe(expected);
    }
  });

  it('the deepObject form of params the document states is accepted, like the SDKs’ params.<name>', async () => {
    const created = await bodyOf(
      await host.call('/v1/query', {
        json: {
          name: 'by chain',
          query_sql: "SELECT '{{chain}}' AS chain",
          parameters: { chain: 'ethereum' },
        },
      }),
    );
    const run = await bodyOf(await host.call(`/v1/query/${created.query_id}/execute`, { method: 'POST' }));
    expect((await waitUntilFinished(host, run.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const results = (query: string) => host.call(`/v1/query/${created.query_id}/results?${query}`);
    for (const form of ['params.chain', 'params%5Bchain%5D']) {
      const same = await results(`${form}=ethereum`);
      expect(same.status, form).toBe(200);
      expect((await bodyOf(same)).result.rows, form).toEqual([{ chain: 'ethereum' }]);
      const other = await results(`${form}=base`);
      expect(other.status, form).toBe(404);
      expect((await bodyOf(other)).error, form).toMatch(/ran with other parameter values than chain=base/);
    }
    expect((await results('colour=red')).status).toBe(400);
  });
});
