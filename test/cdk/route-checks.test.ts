import { describe, expect, it } from 'vitest';
import { type RouteDefinition, routes } from '../../functions/routes';
import { assertRoutesDeployable } from '../../lib/constructs/route-checks';

const route = (method: RouteDefinition['method'], path: string, functionName: string): RouteDefinition => ({
  method,
  path,
  entry: 'x.ts',
  handler: 'handler',
  functionName,
});

describe('route table checks at synth time', () => {
  it('accept the shared route table', () => {
    expect(() => assertRoutesDeployable(routes)).not.toThrow();
  });

  it('accept shared prefixes and one parameter name per level', () => {
    expect(() =>
      assertRoutesDeployable([
        route('GET', '/v1/query/{id}', 'GetQuery'),
        route('PATCH', '/v1/query/{id}', 'UpdateQuery'),
        route('POST', '/v1/query/{id}/execute', 'ExecuteQuery'),
        route('GET', '/v1/query/search', 'SearchQueries'),
      ]),
    ).not.toThrow();
  });

  it('reject two parameter names under one parent, which CloudFormation rejects mid-deploy', () => {
    expect(() =>
      assertRoutesDeployable([
        route('GET', '/v1/query/{id}', 'GetQuery'),
        route('GET', '/v1/query/{query_id}/x', 'X'),
      ]),
    ).toThrow(/"\{query_id\}" under "\/v1\/query" conflicts with "\{id\}"/);
  });

  it('reject a deprecated path whose successor is not a route listed before it', () => {
    const successor = route('POST', '/v1/uploads', 'CreateUpload');
    const deprecated = {
      ...route('POST', '/v1/table/create', 'CreateTable'),
      supersededBy: 'POST /v1/uploads',
    };
    expect(() => assertRoutesDeployable([successor, deprecated])).not.toThrow();
    expect(() => assertRoutesDeployable([deprecated, successor])).toThrow(
      /supersededBy "POST \/v1\/uploads" is not a route listed before it/,
    );
  });

  it('reject duplicate routes and function ids', () => {
    expect(() =>
      assertRoutesDeployable([
        route('GET', '/v1/a', 'A'),
        route('GET', '/v1/a', 'B'),
        route('POST', '/v1/b', 'A'),
      ]),
    ).toThrow(/duplicate route GET \/v1\/a[\s\S]*duplicate functionName A/);
  });

  it('reject malformed paths and function ids', () => {
    expect(() => assertRoutesDeployable([route('GET', 'v1/a', 'A')])).toThrow(/must be "\/" or start with/);
    expect(() => assertRoutesDeployable([route('GET', '/v1/a/', 'A')])).toThrow(/not end with/);
    expect(() => assertRoutesDeployable([route('GET', '/', 'Root')])).not.toThrow();
    expect(() => assertRoutesDeployable([route('GET', '/v1//a', 'A')])).toThrow(/bad path segment/);
    expect(() => assertRoutesDeployable([route('GET', '/v1/{a-b}', 'A')])).toThrow(/bad path parameter/);
    expect(() => assertRoutesDeployable([route('GET', '/v1/a', 'list-a')])).toThrow(/functionName/);
  });
});
