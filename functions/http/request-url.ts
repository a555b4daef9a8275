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
