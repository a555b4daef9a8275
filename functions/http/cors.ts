import { type RouteDefinition, routes } from '../routes';

/**
 * CORS for the routes the route table marks `cors` (functions/routes.ts), the same on both hosts:
 * the handlers' answers carry `Access-Control-Allow-Origin` (in AWS only the Lambda can add it to
 * a proxy integration's answer), and the path's `OPTIONS` preflight is answered by the local HTTP
 * server or, in AWS, by a MOCK `OPTIONS` method (lib/constructs/api.ts) built from the same values.
 *
 * - `public` (OAuth metadata, JWKS, registration, token): any origin, `*`. They take no ambient
 *   credentials (no cookies), so a page on another site learns nothing it could not fetch itself.
 * - `mcp` (`/mcp/v1`): only the origins `MCP_ALLOWED_ORIGINS` lists (the endpoint's Origin check
 *   refuses the others with 403), echoed back with `Vary: Origin`.
 */

/** Request headers a browser-based OAuth client sends to the public endpoints. */
export const PUBLIC_CORS_ALLOW_HEADERS = ['content-type', 'authorization', 'mcp-protocol-version'] as const;
/** Request headers an MCP client in a browser sends (Streamable HTTP, resumption, either credential). */
export const MCP_CORS_ALLOW_HEADERS = [
  ...PUBLIC_CORS_ALLOW_HEADERS,
  'mcp-session-id',
  'last-event-id',
  'x-service-api-key',
] as const;
/** Response headers an MCP client must read: the OAuth challenge and the Streamable HTTP ones. */
export const MCP_CORS_EXPOSE_HEADERS = [
  'www-authenticate',
  'mcp-protocol-version',
  'mcp-session-id',
] as const;
/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** The CORS kind of a route path (`/oauth/mcp/register`), from the route table; undefined for none. */
export function corsOf(path: string | undefined, table: readonly RouteDefinition[] = routes) {
  if (!path) return undefined;
  if (table === routes) return CORS_BY_PATH.get(path);
  return table.find((route) => route.path === path && route.cors)?.cors;
}

/** The route table's CORS paths, looked up once: every API answer asks (route-handler.ts). */
const CORS_BY_PATH = new Map(routes.filter((route) => route.cors).map((route) => [route.path, route.cors]));

/** The methods a preflight allows on a path: its routes' methods, and OPTIONS. */
export function corsMethodsOf(path: string, table: readonly RouteDefinition[] = routes): string[] {
  const methods = table.filter((route) => route.path === path).map((route) => route.method);
  return [...new Set(methods), 'OPTIONS'];
}

/** On every answer of a `public` route, errors included. */
export const PUBLIC_CORS_HEADERS: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*' };

/** The answer to a `public` route's preflight (204, no body). */
export function publicPreflightHeaders(path: string): Record<string, string> {
  return {
    ...PUBLIC_CORS_HEADERS,
    'access-control-allow-methods': corsMethodsOf(path).join(', '),
    'access-control-allow-headers': PUBLIC_CORS_ALLOW_HEADERS.join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/** `MCP_ALLOWED_ORIGINS`: comma-separated origins (`https://app.example`) or hosts (`app.example:8080`). */
export function mcpAllowedOrigins(value = process.env.MCP_ALLOWED_ORIGINS ?? ''): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** Whether `origin` is one MCP_ALLOWED_ORIGINS lists, as an origin or by its host. */
export function isAllowedMcpOrigin(origin: string, allowed = mcpAllowedOrigins()): boolean {
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  return allowed.includes(origin.toLowerCase()) || allowed.includes(host);
}

/**
 * The origins a preflight of `/mcp/v1` may name, as browsers send them: an allowed host stands
 * for its `https://` and `http://` origins.
 */
export function mcpPreflightOrigins(allowed: readonly string[]): string[] {
  return [
    ...new Set(
      allowed.flatMap((entry) =>
        /^https?:\/\//.test(entry) ? [entry] : [`https://${entry}`, `http://${entry}`],
      ),
    ),
  ];
}

/** On an `/mcp/v1` answer to a page of an allowed origin (none for another origin or no Origin). */
export function mcpCorsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin || !isAllowedMcpOrigin(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': MCP_CORS_EXPOSE_HEADERS.join(', '),
    vary: 'Origin',
  };
}

/** The answer to an `/mcp/v1` preflight from an allowed origin (204, no body). */
export function mcpPreflightHeaders(origin: string, path = '/mcp/v1'): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': corsMethodsOf(path).join(', '),
    'access-control-allow-headers': MCP_CORS_ALLOW_HEADERS.join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
    vary: 'Origin',
  };
}

/** What a preflight of `/mcp/v1` from another origin is told (403). */
export function mcpOriginRefusal(origin: string): string {
  return `Forbidden: Origin ${origin} is not allowed for this server (set MCP_ALLOWED_ORIGINS to allow it).`;
}
