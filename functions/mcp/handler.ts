import { randomUUID } from 'node:crypto';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authenticateApiKey } from '../accounts/use-cases';
import type { Account } from '../core/accounts';
import { mapError } from '../http/error-mapping';
import { logger } from '../http/logger';
import { requestBaseUrl } from '../http/request-url';
import { API_KEY_HEADER, API_KEY_QUERY_PARAMETER, presentedApiKey } from '../http/route-handler';
import { getServices } from '../services';
import { buildMcpServer } from './server';

/**
 * `POST /mcp/v1`: one stateless MCP exchange per Lambda invocation. A fresh McpServer and
 * transport serve each request (a stateless transport cannot be reused, and the next request may
 * land on another instance anyway); the whole response body (JSON or SSE) is read and returned
 * buffered, because API Gateway REST integrations buffer responses.
 */
export const mcpPost = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(httpHeaderNormalizer())
  .handler(async (event, context) => {
    const requestId = requestIdOf(event, context);
    logger.appendKeys({ requestId, route: 'POST /mcp/v1' });
    try {
      const refused = originRefusal(event, requestId);
      if (refused) return refused;
      const services = await getServices();
      let account: Account;
      try {
        account = await authenticateApiKey(services.accounts, presentedApiKey(event));
      } catch (error) {
        const mapped = mapError(error, requestId);
        if (mapped.statusCode !== 401) throw error;
        return unauthorized(mapped.message, requestId);
      }
      logger.appendKeys({ accountId: account.accountId });
      const baseUrl = requestBaseUrl(event);
      const server = buildMcpServer({ services, account, baseUrl });
      // The SDK refuses (406) a POST whose Accept lacks text/event-stream; a client that takes
      // only JSON gets a plain JSON answer instead (progress notifications need SSE).
      const jsonOnly = !/text\/event-stream/i.test(event.headers?.accept ?? '');
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: jsonOnly,
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(toRequest(event, baseUrl, jsonOnly));
        // Reads to the end: in SSE mode the stream closes itself after the final response.
        const body = await response.text();
        return {
          statusCode: response.status,
          headers: { ...Object.fromEntries(response.headers), 'x-request-id': requestId },
          body,
        };
      } finally {
        await transport.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
    } catch (error) {
      const mapped = mapError(error, requestId);
      if (mapped.expected) logger.info('mcp request refused', { statusCode: mapped.statusCode });
      else logger.error('mcp request failed', { error: error as Error });
      return rpcError(
        mapped.statusCode,
        mapped.statusCode === 500 ? -32603 : -32000,
        mapped.message,
        requestId,
      );
    }
  });

/**
 * `GET /mcp/v1`: the spec lets a server without a server-initiated stream answer 405. Stream
 * resumption with `Last-Event-ID` is a later slice; a stateless GET stream would hold the Lambda
 * open until its timeout.
 */
export const mcpGet = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(httpHeaderNormalizer())
  .handler(async (event, context) => {
    const requestId = requestIdOf(event, context);
    const refused = originRefusal(event, requestId);
    if (refused) return refused;
    return rpcError(
      405,
      -32000,
      'Method not allowed: this server offers no server-initiated stream yet; send JSON-RPC messages with POST /mcp/v1.',
      requestId,
      { allow: 'POST' },
    );
  });

/**
 * DNS-rebinding protection: a browser page on another site must not reach the endpoint. A
 * request with an `Origin` whose host is neither the request's Host nor listed in
 * `MCP_ALLOWED_ORIGINS` (comma-separated origins or hosts) is refused with 403.
 */
function originRefusal(event: APIGatewayProxyEvent, requestId: string): APIGatewayProxyResult | undefined {
  const origin = event.headers?.origin;
  if (!origin) return undefined;
  const host = (event.headers?.host ?? '').toLowerCase();
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return rpcError(403, -32000, `Forbidden: malformed Origin header "${origin}".`, requestId);
  }
  const allowed = (process.env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  if (originHost === host || allowed.includes(origin.toLowerCase()) || allowed.includes(originHost)) {
    return undefined;
  }
  return rpcError(
    403,
    -32000,
    `Forbidden: Origin ${origin} is not allowed for this server (set MCP_ALLOWED_ORIGINS to allow it).`,
    requestId,
  );
}

function unauthorized(message: string, requestId: string): APIGatewayProxyResult {
  return rpcError(
    401,
    -32001,
    message.includes(API_KEY_HEADER)
      ? `Unauthorized: ${message}`
      : `Unauthorized: ${message} Send a valid key in the ${API_KEY_HEADER} header or as ?${API_KEY_QUERY_PARAMETER}= on the URL.`,
    requestId,
    { 'www-authenticate': `ApiKey header="${API_KEY_HEADER}"` },
  );
}

/** JSON-RPC-shaped error without an id (the spec's form for refused HTTP requests), plus `error` text. */
function rpcError(
  statusCode: number,
  code: number,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': requestId,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
  };
}

function toRequest(event: APIGatewayProxyEvent, baseUrl: string, jsonOnly: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (values && values.length > 1 && name.toLowerCase() !== API_KEY_HEADER) {
      headers.set(name, values.join(', '));
    }
  }
  // The key stays out of anything the SDK might echo or log.
  headers.delete(API_KEY_HEADER);
  if (jsonOnly) headers.set('accept', 'application/json, text/event-stream');
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && name !== API_KEY_QUERY_PARAMETER) query.set(name, value);
  }
  const search = query.size ? `?${query.toString()}` : '';
  const body =
    event.body === null || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(`${baseUrl}${event.path}${search}`, {
    method: event.httpMethod,
    headers,
    ...(body !== undefined && event.httpMethod !== 'GET' ? { body } : {}),
  });
}

function requestIdOf(event: APIGatewayProxyEvent, context: Context): string {
  return event.requestContext?.requestId || context.awsRequestId || randomUUID();
}
