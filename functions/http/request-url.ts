import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The public base URL the caller used, stage prefix included (`https://abc.execute-api.../prod`
 * in AWS, `http://127.0.0.1:3000` locally), for absolute links such as `next_uri`.
 */
export function requestBaseUrl(event: APIGatewayProxyEvent): string {
  const headers = event.headers ?? {};
  const host = headers.host ?? headers.Host ?? 'localhost';
  const proto =
    headers['x-forwarded-proto'] ??
    headers['X-Forwarded-Proto'] ??
    (host.startsWith('127.0.0.1') || host.startsWith('localhost') ? 'http' : 'https');
  const contextPath = event.requestContext?.path ?? event.path;
  const prefix = contextPath.endsWith(event.path)
    ? contextPath.slice(0, contextPath.length - event.path.length)
    : '';
  return `${proto}://${host}${prefix}`;
}
