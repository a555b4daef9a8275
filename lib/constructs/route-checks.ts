import type { RouteDefinition } from '../../functions/routes';

const STATIC_PART = /^[A-Za-z0-9._~:@!$&'()*+,;=-]+$/;
const VARIABLE_PART = /^\{[A-Za-z_][A-Za-z0-9_]*\+?\}$/;
const LOGICAL_ID = /^[A-Za-z][A-Za-z0-9]*$/;

/**
 * Rejects, at synth time, route tables that CloudFormation would only reject mid-deploy: two
 * different `{param}` names under one parent ("A sibling ({id}) of this resource already has a
 * variable path part"), malformed paths, and duplicate routes or function ids.
 */
export function assertRoutesDeployable(routes: readonly RouteDefinition[]): void {
  const problems: string[] = [];
  const seenRoutes = new Set<string>();
  const seenFunctions = new Set<string>();
  // parent path -> the variable part used under it, and the route that introduced it
  const variableChild = new Map<string, { part: string; route: string }>();

  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    if (seenRoutes.has(name)) problems.push(`duplicate route ${name}`);
    seenRoutes.add(name);

    if (!LOGICAL_ID.test(route.functionName)) {
      problems.push(
        `${name}: functionName "${route.functionName}" must be alphanumeric, starting with a letter`,
      );
    }
    if (seenFunctions.has(route.functionName)) problems.push(`duplicate functionName ${route.functionName}`);
    seenFunctions.add(route.functionName);
    // Its function is the successor's, so the successor comes first in the table.
    if (route.supersededBy && !seenRoutes.has(route.supersededBy)) {
      problems.push(`${name}: supersededBy "${route.supersededBy}" is not a route listed before it`);
    }

    if (route.path === '/') continue; // a method on the API's root resource
    if (!route.path.startsWith('/') || route.path.endsWith('/')) {
      problems.push(`${name}: path must be "/" or start with "/" and not end with "/"`);
      continue;
    }
    const parts = route.path.slice(1).split('/');
    let parent = '';
    for (const part of parts) {
      if (part.startsWith('{')) {
        if (!VARIABLE_PART.test(part)) problems.push(`${name}: bad path parameter "${part}"`);
        const existing = variableChild.get(parent);
        if (existing && existing.part !== part) {
          problems.push(
            `${name}: "${part}" under "${parent || '/'}" conflicts with "${existing.part}" from ${existing.route}; ` +
              'API Gateway allows one parameter name per level',
          );
        } else if (!existing) {
          variableChild.set(parent, { part, route: name });
        }
      } else if (!STATIC_PART.test(part)) {
        problems.push(`${name}: bad path segment "${part}"`);
      }
      parent = `${parent}/${part}`;
    }
  }
  if (problems.length > 0) throw new Error(`Route table cannot be deployed:\n- ${problems.join('\n- ')}`);
}
