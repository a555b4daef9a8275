import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The public base URL the caller used, stage prefix included (`https://abc.execute-api.../prod`
 * in AWS, `http://127.0.0.1:3000` locally), for absolute links such as `next_uri`.
 */
export function requestBaseUrl(event: APIGatewayProxyEvent): string {
  const host = headerOf(event, 'host') ?? 'localhost';
  // API Gateway and the local host (functions/local/api-gateway-event.ts) both say the scheme
  // (behind a chain of proxies, the first listed is the client's); the guess serves only events
  // made without the header.
  const forwarded = headerOf(event, 'x-forwarded-proto')?.split(',')[0]?.trim();
  const proto =
    forwarded || (host.startsWith('127.0.0.1') || host.startsWith('localhost') ? 'http' : 'https');
  const contextPath = event.requestContext?.path ?? event.path;
  const prefix = contextPath.endsWith(event.path)
    ? contextPath.slice(0, contextPath.length - event.path.length)
    : '';
  return `${proto}://${host}${prefix}`;
}

/** A header's value in any case: only routeHandler's handlers see headers lower-cased. */
function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const key = Object.keys(headers).find((key) => key.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/**
 * The service's configured public base URL (`PUBLIC_BASE_URL`: in AWS the custom domain, else the
 * API's execute-api URL with its stage, set by the stack; locally the host's own address) and its
 * aliases (`PUBLIC_BASE_URL_ALIASES`, comma-separated: locally `http://localhost:<port>` for
 * `http://127.0.0.1:<port>`). Empty when none is configured (events made by hand).
 */
export function configuredBaseUrls(env: NodeJS.ProcessEnv = process.env): string[] {
  const primary = env.PUBLIC_BASE_URL?.trim();
  if (!primary) return [];
  const aliases = (env.PUBLIC_BASE_URL_ALIASES ?? '').split(',').map((alias) => alias.trim());
  return [primary, ...aliases]
    .filter(Boolean)
    .map((url) => url.replace(/\/+$/, ''))
    .filter((url, index, all) => all.indexOf(url) === index);
}

/**
 * The base URL the authorization server and the authorizer stand for: the issuer's and every
 * token's audience. The configured public base URL, whatever `Host` the request names (a token
 * got through one alias works through another, and no `Host` header moves the issuer); the
 * request's own only where none is configured.
 */
export function canonicalBaseUrl(event: APIGatewayProxyEvent): string {
  return configuredBaseUrls()[0] ?? requestBaseUrl(event);
}

/**
 * The base URL to name to this caller: as the protected resource (RFC 9728 §3.3: a client checks
 * it against the URL it used), in its challenge, and for the sign-in pages' cookies and redirect.
 * The request's own when it is the configured one or an alias, otherwise the configured one (a
 * foreign `Host` is never reflected).
 */
export function resourceBaseUrl(event: APIGatewayProxyEvent): string {
  const configured = configuredBaseUrls();
  const own = requestBaseUrl(event);
  return configured.length === 0 || configured.includes(own) ? own : configured[0]!;
}
