import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../functions/local/host';
import { Router } from '../../functions/local/router';
import { routes } from '../../functions/routes';

describe('the local router built from the route table', () => {
  const router = new Router(routes, REPO_ROOT);

  it('resolves every route in the table to its own entry, with path parameters', () => {
    for (const route of routes) {
      const concrete = route.path.replace(/\{(\w+)\+?\}/g, (_m, name) => `sample_${name}`);
      const match = router.match(route.method, concrete);
      expect(match && 'route' in match ? match.route : undefined).toBe(route);
    }
  });

  it('prefers literal segments over parameters, as API Gateway does', () => {
    const match = router.match('POST', '/v1/datasets/search');
    expect(match && 'route' in match && match.route.handler).toBe('searchDatasets');
    const byName = router.match('GET', '/v1/datasets/dex.trades');
    expect(byName && 'route' in byName && byName.pathParameters).toEqual({ full_name: 'dex.trades' });
  });

  it('matches a greedy path parameter over any number of segments, and a trailing slash', () => {
    const greedy = router.match('GET', '/.well-known/oauth-protected-resource/mcp/v1');
    expect(greedy && 'route' in greedy && greedy.pathParameters).toEqual({ resource_path: 'mcp/v1' });
    const slashed = router.match('GET', '/v1/execution/01ABC/status/');
    expect(slashed && 'route' in slashed && slashed.pathParameters).toEqual({ execution_id: '01ABC' });
    expect(router.match('GET', '/v1//execution/01ABC/status')).toBeUndefined();
    expect(router.match('GET', '/v1/execution/01ABC/status/extra')).toBeUndefined();
  });

  it('tells a wrong method from an unknown path', () => {
    expect(router.match('DELETE', '/v1/datasets')).toEqual({ allowed: ['GET'] });
    expect(router.match('GET', '/v1/nothing-here')).toBeUndefined();
  });

  it('loads every route handler the way Lambda would: entry file + exported function', async () => {
    for (const route of routes) {
      await expect(router.handler(route)).resolves.toBeTypeOf('function');
    }
  });

  it("runs a deprecated path's route on its successor's very handler", async () => {
    const deprecated = routes.filter((route) => route.supersededBy);
    expect(deprecated.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /v1/table/create',
      'POST /v1/table/upload/csv',
      'POST /v1/table/{namespace}/{table_name}/insert',
      'DELETE /v1/table/{namespace}/{table_name}',
    ]);
    for (const route of deprecated) {
      const successor = routes.find((other) => `${other.method} ${other.path}` === route.supersededBy);
      expect(successor, route.supersededBy).toBeDefined();
      expect(successor!.supersededBy).toBeUndefined();
      expect(route.entry).toBe(successor!.entry);
      expect(await router.handler(route), route.handler).toBe(await router.handler(successor!));
    }
  });
});
