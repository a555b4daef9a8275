import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizeRequest } from '../auth/authorizer';
import {
  isAllowedMcpOrigin,
  mcpOriginRefusal,
  mcpPreflightHeaders,
  PUBLIC_CORS_HEADERS,
  publicPreflightHeaders,
} from '../http/cors';
import { logger } from '../http/logger';
import type { RouteDefinition } from '../routes';
import { localLambdaContext, toApiGatewayEvent } from './api-gateway-event';
import { Router } from './router';

/** API Gateway's own request size limit. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export interface LocalHttpServer {
  baseUrl: string;
  close(): Promise<void>;
}

/** The local front door: HTTP request → API Gateway event → the route's Lambda handler → HTTP response. */
export async function startHttpServer(options: {
  routes: readonly RouteDefinition[];
  repoRoot: string;
  host?: string;
  port?: number;
}): Promise<LocalHttpServer> {
  const router = new Router(options.routes, options.repoRoot);
  const server: Server = createServer((request, response) => {
    handle(router, request, response).catch((error) => {
      logger.error('local host failed to serve a request', { error: error as Error });
      if (!response.headersSent) sendJson(response, 500, { error: 'Internal error.' });
      else response.end();
    });
  });
  // A request Node cannot read (a URL and headers over its 16 KiB limit, or malformed HTTP) would
  // get a bare status line; it gets a JSON error instead, as every other refusal does.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: tooLarge
        ? 'The URL and headers are too large (over 16 KiB): shorten the query string (fewer columns, a shorter filter) or the headers.'
        : 'Malformed HTTP request.',
    });
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        `content-type: application/json\r\nx-request-id: ${randomUUID()}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  // Longer than clients' own keep-alive (undici: 4 s), so a client never reuses a socket the server
  // is closing at that very moment (ECONNRESET); close() ends idle sockets itself.
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests still in flight get a moment to finish; then their sockets close too.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}

async function handle(router: Router, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  const corsRoute = method === 'OPTIONS' ? router.corsRouteAt(url.pathname) : undefined;
  if (corsRoute) {
    answerPreflight(corsRoute, request, response);
    return;
  }
  const match = router.match(method, url.pathname);
  if (!match) {
    sendJson(response, 404, { error: `Not found: no route for ${method} ${url.pathname}.` });
    return;
  }
  if ('allowed' in match) {
    sendJson(
      response,
      405,
      { error: `Method ${method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}.` },
      {
        allow: match.allowed.join(', '),
      },
    );
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    sendJson(
      response,
      413,
      { error: `Request body exceeds ${MAX_REQUEST_BYTES} bytes.` },
      router.corsRouteAt(url.pathname)?.cors === 'public' ? PUBLIC_CORS_HEADERS : {},
    );
    return;
  }
  const event = toApiGatewayEvent({
    request,
    url,
    body,
    resource: match.route.path,
    pathParameters: match.pathParameters,
  });
  // What API Gateway does before it calls a protected route's function: run the one authorizer
  // and hand its verdict to the handler in the request context.
  if (!match.route.public) event.requestContext.authorizer = await authorizeRequest(event);
  const handler = await router.handler(match.route);
  const context = localLambdaContext(
    match.route.functionName,
    match.route.timeoutSeconds ?? 29,
    event.requestContext.requestId,
  );
  const result = await handler(event, context);
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * A CORS preflight of a route the route table marks `cors` (functions/http/cors.ts): 204 with what
 * the path allows; for `/mcp/v1`, only from an origin MCP_ALLOWED_ORIGINS lists (else 403, as
 * the endpoint itself refuses that origin). In AWS a MOCK OPTIONS method answers (lib/constructs/api.ts).
 */
function answerPreflight(route: RouteDefinition, request: IncomingMessage, response: ServerResponse): void {
  const headers: Record<string, string> = { 'x-request-id': randomUUID() };
  if (route.cors === 'public') {
    response.writeHead(204, { ...headers, ...publicPreflightHeaders(route.path) });
    response.end();
    return;
  }
  const origin = request.headers.origin;
  if (origin && isAllowedMcpOrigin(origin)) {
    response.writeHead(204, { ...headers, ...mcpPreflightHeaders(origin, route.path) });
    response.end();
    return;
  }
  sendJson(
    response,
    403,
    {
      error: origin
        ? mcpOriginRefusal(origin)
        : `Forbidden: OPTIONS on ${route.path} answers CORS preflights of browser pages (with an Origin header); send POST.`,
    },
    { vary: 'Origin' },
  );
}

const NO_BODY = Buffer.alloc(0);

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  // A request with neither length nor chunked encoding has no body (RFC 9112 §6.3): nothing to
  // read, and an async iterator per GET costs more than the rest of a cached status read.
  const { headers } = request;
  if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) return NO_BODY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function sendJson(
  response: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
) {
  // API Gateway answers unmatched routes itself, with its own request id.
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': randomUUID(),
    ...headers,
  });
  response.end(JSON.stringify(payload));
}
