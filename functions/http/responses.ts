import type { APIGatewayProxyResult } from 'aws-lambda';

/** A non-JSON (or non-200) response a route returns as is, e.g. CSV or an HTML page. */
export class HttpResponse {
  constructor(
    readonly statusCode: number,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function jsonResult(
  statusCode: number,
  payload: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(payload),
  };
}
