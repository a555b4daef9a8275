import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RouteDefinition } from '../routes';
import type { LambdaHttpHandler } from './api-gateway-event';

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string> | null;
}

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  names: string[];
  /** Literal segments first: `/v1/datasets/search` wins over `/v1/datasets/{full_name}`. */
  literalSegments: number;
  /** How many segments a path it matches has; undefined for a greedy `{name+}` (any number). */
  segmentCount: number | undefined;
}

/** Matches requests against the route table the way API Gateway resources do. */
export class Router {
  private readonly compiled: CompiledRoute[];
  private readonly handlers = new Map<RouteDefinition, Promise<LambdaHttpHandler>>();

  constructor(
    routes: readonly RouteDefinition[],
    private readonly repoRoot: string,
  ) {
    this.compiled = routes
      .map((route) => {
        const names: string[] = [];
        const segments = route.path.split('/').filter(Boolean);
        const source = segments
          .map((segment) => {
            const param = /^\{(\w+)\+?\}$/.exec(segment);
            if (!param) return escapeRegExp(segment);
            names.push(param[1]!);
            return segment.endsWith('+}') ? '(.+)' : '([^/]+)';
          })
          .join('/');
        return {
          route,
          pattern: new RegExp(`^/${source}/?$`),
          names,
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
          segmentCount: route.path.includes('+}') ? undefined : segments.length,
        };
      })
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The matching route, or the methods allowed on that path when only the method is wrong. */
  match(method: string, pathname: string): RouteMatch | { allowed: string[] } | undefined {
    const allowed: string[] = [];
    // A route whose segment count differs cannot match: one count instead of a regex per route.
    const segmentCount = countSegments(pathname);
    for (const candidate of this.compiled) {
      if (candidate.segmentCount !== undefined && candidate.segmentCount !== segmentCount) continue;
      const found = candidate.pattern.exec(pathname);
      if (!found) continue;
      if (candidate.route.method !== method) {
        allowed.push(candidate.route.method);
        continue;
      }
      const pathParameters = candidate.names.length
        ? Object.fromEntries(candidate.names.map((name, i) => [name, safeDecode(found[i + 1]!)]))
        : null;
      return { route: candidate.route, pathParameters };
    }
    return allowed.length ? { allowed: [...new Set(allowed)] } : undefined;
  }

  /** The route (any method) at a path that the route table marks for CORS, for answering its preflight. */
  corsRouteAt(pathname: string): RouteDefinition | undefined {
    return this.compiled.find((candidate) => candidate.route.cors && candidate.pattern.test(pathname))?.route;
  }

  /** Loads the route's handler module the way Lambda would: by entry file and export name. */
  handler(route: RouteDefinition): Promise<LambdaHttpHandler> {
    let loaded = this.handlers.get(route);
    if (!loaded) {
      loaded = import(pathToFileURL(resolve(this.repoRoot, route.entry)).href).then((module) => {
        const handler = module[route.handler];
        if (typeof handler !== 'function') throw new Error(`${route.entry} does not export ${route.handler}`);
        return handler as LambdaHttpHandler;
      });
      this.handlers.set(route, loaded);
    }
    return loaded;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Non-empty `/`-separated segments, as the route patterns count them (a trailing `/` is allowed). */
function countSegments(pathname: string): number {
  let count = 0;
  let inSegment = false;
  for (let i = 0; i < pathname.length; i++) {
    if (pathname.charCodeAt(i) === 47 /* '/' */) inSegment = false;
    else if (!inSegment) {
      inSegment = true;
      count++;
    }
  }
  return count;
}
