import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../functions/routes';
import { routes } from '../../functions/routes';
import { FIXTURE_ENTRY, resourceCount, synthServiceStack } from './helpers';

/**
 * CloudFormation allows 500 resources per stack and every route costs several. These tests keep
 * the per-route cost known and the projected stack for the full API (~60 routes) well under it.
 */
const CLOUDFORMATION_LIMIT = 500;
const PROJECTED_ROUTES = 60;
const PROJECTED_BUDGET = 410;

/**
 * Worst realistic case: every route gets a collection and a `{id}` resource of its own, so no API
 * Gateway resource is shared with another route.
 */
function syntheticRoutes(count: number): RouteDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    method: 'GET',
    path: `/v1/feature${i}/{id}`,
    entry: FIXTURE_ENTRY,
    handler: 'handler',
    functionName: `Feature${i}`,
  }));
}

const countFor = (table: readonly RouteDefinition[]) =>
  resourceCount(synthServiceStack({ routes: table }).template);

describe('stack resource budget', () => {
  // Function + log group + invoke permission + method + 2 unshared API resources.
  const one = countFor(syntheticRoutes(1));
  const eleven = countFor(syntheticRoutes(11));
  const perRoute = (eleven - one) / 10;
  const base = one - perRoute;

  it('costs a fixed number of resources per route', () => {
    expect(perRoute).toBe(6);
    // Fixed part (41): table; REST API, deployment, stage, 4 gateway responses, /v1, request
    // validator, access-log group, API Gateway's account logging role and setting; a role per
    // function group present (authorizer, runner and the routes' groups; grants inline, no policy
    // resource); node runner + log group, workflow role + log group, refresh schedule group,
    // scheduler role, the sweep schedule; the query engine's 10 (results, data and access-log buckets with their TLS
    // policies, the Glue catalog as one nested stack, one Athena workgroup per tier, the query-run
    // role); the refresh
    // dead-letter queue and its TLS policy; the authorizer (function, log group, API Gateway
    // authorizer and its invoke permission); the signing-key secret; the alarms as one nested
    // stack. Generated state machines and refresh schedules are created at run time, outside the
    // stack.
    expect(base).toBeLessThanOrEqual(41);
  });

  it('keeps the current route table well under the limit', () => {
    const current = countFor(routes);
    console.info(
      `resources: ${current} for ${routes.length} routes; base ${base}, worst case ${perRoute}/route, ` +
        `actual ${((current - base) / routes.length).toFixed(2)}/route`,
    );
    // 46 routes cost ~248 resources; past PROJECTED_ROUTES the API should move to nested stacks
    // (or shared functions per feature) before CloudFormation's 500 is near.
    expect(current).toBeLessThan(PROJECTED_BUDGET);
    expect(base + ((current - base) / routes.length) * PROJECTED_ROUTES).toBeLessThan(PROJECTED_BUDGET);
  });

  it(`fits ${PROJECTED_ROUTES} worst-case routes in ${PROJECTED_BUDGET} resources`, () => {
    expect(base + perRoute * PROJECTED_ROUTES).toBeLessThanOrEqual(PROJECTED_BUDGET);
    // Not just extrapolated: build it.
    const projected = countFor(syntheticRoutes(PROJECTED_ROUTES));
    expect(projected).toBe(base + perRoute * PROJECTED_ROUTES);
    expect(projected).toBeLessThan(CLOUDFORMATION_LIMIT);
  });
});
