import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { requestPrincipal } from '../auth/authorizer';
import { API_KEY_HEADER, API_KEY_QUERY_PARAMETER } from '../auth/credentials';
import type { Account } from '../core/accounts';
import { isTerminal } from '../core/executions';
import { isAllowedMcpOrigin, mcpCorsHeaders, mcpOriginRefusal } from '../http/cors';
import { mapError } from '../http/error-mapping';
import { addRequestLogKeys, logger, requestLogging } from '../http/logger';
import { requestBaseUrl } from '../http/request-url';
import { errorResponse, requestIdOf } from '../http/route-handler';
import { getServices, type Services } from '../services';
import { AccountEventStore, mcpEventLog, sseEvent } from './event-store';
import { directExchangeRequest, JsonExchangeTransport } from './json-exchange';
import { McpServerPool, type ServerContext, toolLeftOut, toolSelectionOf } from './server';
import {
  answersAsStream,
  calledTool,
  malformedToolCallAnswer,
  type ParsedBody,
  parseBody,
  toolErrorAnswer,
} from './tool-arguments';

/** No MCP request runs longer than this (API Gateway ends requests at 29 s). */
export const MCP_REQUEST_DEADLINE_MS = 25_000;

/** Servers are built once per caller and process, not per request (functions/mcp/server.ts). */
const servers = new McpServerPool();

/**
 * `POST /mcp/v1`: one stateless MCP exchange per Lambda invocation, served by the caller's pooled
 * McpServer (server.ts). A single request answered as JSON goes through the server's own exchange
 * transport (json-exchange.ts); anything else through a fresh Streamable HTTP transport (which
 * cannot be reused). The whole response body (JSON or SSE) is read and returned buffered, because
 * API Gateway REST integrations buffer responses.
 *
 * Requests answered at once (tools/list, most tool calls) get one JSON response. A call that will
 * wait (getExecutionResults on a running execution) or asks for progress gets SSE, whose events
 * carry ids and are persisted (see `event-store.ts`) so that `GET /mcp/v1` with `Last-Event-ID`
 * can replay them. A request still unanswered after
 * `MCP_REQUEST_DEADLINE_MS` is cut short: its handler is aborted and the client gets an answer
 * saying so (a tool error for `tools/call`, else a JSON-RPC `-32001` error).
 */
export const mcpPost = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(requestLogging)
  .use(httpHeaderNormalizer())
  .use(mcpCors())
  .handler(async (event, context) => {
    const requestId = requestIdOf(event, context);
    addRequestLogKeys({ requestId, route: 'POST /mcp/v1' });
    try {
      const refused = originRefusal(event, requestId);
      if (refused) return refused;
      const account = await authenticate(event, requestId);
      if ('statusCode' in account) return account;
      const parsed = parseBody(event);
      const malformed = malformedToolCallAnswer(parsed);
      if (malformed) {
        // An Invalid Request (the empty batch) is refused as the SDK refuses a malformed message.
        const invalid = 'error' in malformed && malformed.error.code === -32600;
        return jsonAnswer(invalid ? 400 : 200, malformed, requestId);
      }
      const tools = toolSelectionOf(event.queryStringParameters ?? {});
      if ('error' in tools) return jsonAnswer(400, { error: tools.error }, requestId);
      const services = await getServices();
      const baseUrl = requestBaseUrl(event);
      const serverContext = { services, account, baseUrl, tools };
      const server = servers.acquire(serverContext);
      // Built (or built before), the server has registered every tool's group and kind.
      const called = calledTool(parsed);
      const leftOut = called && toolLeftOut(called.name, tools);
      if (called && leftOut) {
        await servers.release(serverContext, server);
        return jsonAnswer(200, toolErrorAnswer(called.id, leftOut), requestId);
      }
      // The SDK refuses (406) a POST whose Accept lacks text/event-stream; a client that takes
      // only JSON gets a plain JSON answer instead (progress notifications need SSE). A request
      // answered at once gets JSON too: only one that may wait or report progress is streamed.
      const accept = event.headers?.accept ?? '';
      const acceptsJson = /application\/json|\*\/\*/i.test(accept);
      const jsonOnly =
        !/text\/event-stream/i.test(accept) ||
        (acceptsJson && !(await answersAsStream(parsed, (id) => isFinished(services, id))));
      const direct =
        jsonOnly && parsed ? directExchangeRequest(parsed.value, event.headers ?? {}) : undefined;
      if (direct)
        return await answerDirectly({ server, request: direct, event, baseUrl, requestId, serverContext });
      await disconnectExchange(server);
      let reusable = false;
      const eventStore = jsonOnly
        ? undefined
        : new AccountEventStore(mcpEventLog(services), account.accountId);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: jsonOnly,
        ...(eventStore ? { eventStore } : {}),
      });
      await server.connect(transport);
      const deadline = startDeadline(requestDeadlineMs());
      try {
        const handled = await Promise.race([
          transport.handleRequest(
            toRequest(event, baseUrl, parsed),
            parsed ? { parsedBody: parsed.value } : undefined,
          ),
          deadline.expired,
        ]);
        // A JSON answer is complete once handled; an SSE stream is read to its end (it closes
        // itself after the final response) or to the deadline.
        const { body, timedOut } =
          handled === TIMED_OUT
            ? { body: '', timedOut: true }
            : jsonOnly
              ? { body: await handled.text(), timedOut: false }
              : await readBody(handled, deadline.expired);
        if (timedOut) {
          logger.warn('mcp request cut at the deadline', { deadlineMs: deadline.ms });
          const answer = deadlineAnswer(
            event.isBase64Encoded && event.body
              ? Buffer.from(event.body, 'base64').toString('utf8')
              : event.body,
            deadline.ms,
          );
          await transport.close().catch(() => undefined);
          if (jsonOnly || !eventStore) {
            return {
              statusCode: 200,
              headers: { 'content-type': 'application/json', 'x-request-id': requestId },
              body: JSON.stringify(answer),
            };
          }
          const streamId = eventStore.streamId;
          const eventId = streamId ? await eventStore.storeEvent(streamId, answer) : undefined;
          await eventStore.flush();
          return {
            statusCode: 200,
            headers: { ...SSE_HEADERS, 'x-request-id': requestId },
            body: body + sseEvent(eventId, answer),
          };
        }
        const response = handled as Response;
        await eventStore?.flush();
        reusable = true;
        return {
          statusCode: response.status,
          headers: { ...Object.fromEntries(response.headers), 'x-request-id': requestId },
          body,
        };
      } finally {
        deadline.clear();
        await transport.close().catch(() => undefined);
        if (reusable) await servers.release(serverContext, server).catch(() => undefined);
        else await server.close().catch(() => undefined);
      }
    } catch (error) {
      return failure(error, requestId);
    }
  });

/**
 * `GET /mcp/v1`. With `Last-Event-ID`, it replays the events of that event's stream that followed
 * it (same account only; events expire after an hour) as `text/event-stream` and ends the
 * response: the stateless server has nothing more to send, and nothing holds a Lambda open.
 * Without it there is no server-initiated stream to open, so 405 (which the spec allows).
 */
export const mcpGet = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(requestLogging)
  .use(httpHeaderNormalizer())
  .use(mcpCors())
  .handler(async (event, context) => {
    const requestId = requestIdOf(event, context);
    addRequestLogKeys({ requestId, route: 'GET /mcp/v1' });
    try {
      const refused = originRefusal(event, requestId);
      if (refused) return refused;
      const account = await authenticate(event, requestId);
      if ('statusCode' in account) return account;
      const lastEventId = event.headers?.['last-event-id'];
      if (!lastEventId) {
        return rpcError(
          405,
          -32000,
          'Method not allowed: this server offers no server-initiated stream; send JSON-RPC messages with POST /mcp/v1, or GET with a Last-Event-ID header to replay a response stream.',
          requestId,
          { allow: 'POST' },
        );
      }
      const services = await getServices();
      const accept = event.headers?.accept;
      if (accept && !/text\/event-stream|\*\/\*/i.test(accept)) {
        return rpcError(
          406,
          -32000,
          'Not Acceptable: a replay is text/event-stream; list it in Accept.',
          requestId,
        );
      }
      const version = event.headers?.['mcp-protocol-version'];
      if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcError(
          400,
          -32000,
          `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`,
          requestId,
        );
      }
      const store = new AccountEventStore(mcpEventLog(services), account.accountId);
      let body = '';
      await store.replayEventsAfter(lastEventId, {
        send: async (eventId, message) => {
          body += sseEvent(eventId, message);
        },
      });
      return { statusCode: 200, headers: { ...SSE_HEADERS, 'x-request-id': requestId }, body };
    } catch (error) {
      return failure(error, requestId);
    }
  });

/** Each pooled server's JSON exchange transport, while it is connected to it. */
const exchanges = new WeakMap<McpServer, JsonExchangeTransport>();

/**
 * A single request answered with one JSON response, through the server's own exchange transport:
 * no per-request transport, web Request/Response or stream, and no connect or close.
 */
async function answerDirectly(exchange: {
  server: McpServer;
  request: JSONRPCRequest;
  event: APIGatewayProxyEvent;
  baseUrl: string;
  requestId: string;
  serverContext: ServerContext;
}): Promise<APIGatewayProxyResult> {
  const { server, request, requestId } = exchange;
  let transport = exchanges.get(server);
  if (!transport) {
    transport = new JsonExchangeTransport();
    await server.connect(transport);
    exchanges.set(server, transport);
  }
  const deadline = startDeadline(requestDeadlineMs());
  let reusable = false;
  try {
    const answer = await Promise.race([
      transport.exchange(request, { requestInfo: requestInfoOf(exchange.event) }),
      deadline.expired,
    ]);
    if (answer === TIMED_OUT) logger.warn('mcp request cut at the deadline', { deadlineMs: deadline.ms });
    else reusable = true;
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify(
        answer === TIMED_OUT ? deadlineAnswerFor(request.id, request.method, deadline.ms) : answer,
      ),
    };
  } finally {
    deadline.clear();
    // A request cut at the deadline may still be running on the server: the server is dropped.
    if (reusable) await servers.release(exchange.serverContext, server).catch(() => undefined);
    else await disconnectExchange(server).finally(() => server.close().catch(() => undefined));
  }
}

/** Before the server is connected to a request's own transport: its exchange transport is closed. */
async function disconnectExchange(server: McpServer): Promise<void> {
  const transport = exchanges.get(server);
  if (!transport) return;
  exchanges.delete(server);
  await transport.close().catch(() => undefined);
}

/**
 * What the SDK's transport tells request handlers about the HTTP request: its headers, credentials
 * left out (the URL is optional there, and no tool reads it).
 */
function requestInfoOf(event: APIGatewayProxyEvent): RequestInfo {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !CREDENTIAL_HEADERS.includes(name)) headers[name] = value;
  }
  return { headers };
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' };

const TIMED_OUT = Symbol('timed out');

/** `MCP_REQUEST_DEADLINE_MS` from the environment (tests shorten it), at most the default. */
function requestDeadlineMs(): number {
  const configured = Number(process.env.MCP_REQUEST_DEADLINE_MS);
  return Number.isFinite(configured) && configured > 0
    ? Math.min(configured, MCP_REQUEST_DEADLINE_MS)
    : MCP_REQUEST_DEADLINE_MS;
}

function startDeadline(ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return { ms, expired, clear: () => clearTimeout(timer) };
}

/** The response body, or what arrived of it before the deadline. */
async function readBody(
  response: Response,
  expired: Promise<typeof TIMED_OUT>,
): Promise<{ body: string; timedOut: boolean }> {
  if (!response.body) return { body: '', timedOut: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let body = '';
  for (;;) {
    const next = await Promise.race([reader.read(), expired]);
    if (next === TIMED_OUT) {
      await reader.cancel().catch(() => undefined);
      return { body: body + decoder.decode(), timedOut: true };
    }
    if (next.done) return { body: body + decoder.decode(), timedOut: false };
    body += decoder.decode(next.value, { stream: true });
  }
}

/** The answer to a request cut at the deadline, from its raw body (see `deadlineAnswerFor`). */
function deadlineAnswer(rawBody: string | null | undefined, ms: number): JSONRPCMessage {
  let id: string | number | null = null;
  let method: unknown;
  try {
    const parsed = JSON.parse(rawBody ?? '') as { id?: unknown; method?: unknown };
    if (typeof parsed.id === 'string' || typeof parsed.id === 'number') id = parsed.id;
    method = parsed.method;
  } catch {
    // A body the transport accepted is JSON; keep the id null otherwise.
  }
  return deadlineAnswerFor(id, method, ms);
}

/** The answer to a request cut at the deadline: a tool error for `tools/call`, else `-32001`. */
function deadlineAnswerFor(id: string | number | null, method: unknown, ms: number): JSONRPCMessage {
  const seconds = ms / 1000;
  const text = `Stopped after ${seconds} s: no call may run longer than that. Long work returns a handle at once: start a query with executeQueryById, then poll getExecutionResults (timeoutSeconds at most 20) until it completes.`;
  if (method === 'tools/call' && id !== null) {
    return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } };
  }
  return {
    jsonrpc: '2.0',
    id,
    error: { code: -32001, message: `Request timed out. ${text}` },
  } as JSONRPCMessage;
}

/** The caller (the shared authorizer's verdict), or the shared refusal (401/403/400). */
async function authenticate(
  event: APIGatewayProxyEvent,
  requestId: string,
): Promise<Account | APIGatewayProxyResult> {
  try {
    const principal = await requestPrincipal(event);
    addRequestLogKeys({ accountId: principal.account.accountId, via: principal.via });
    return principal.account;
  } catch (error) {
    const mapped = mapError(error, requestId);
    if (mapped.statusCode >= 500) throw error;
    return errorResponse(error, event, requestId);
  }
}

function failure(error: unknown, requestId: string): APIGatewayProxyResult {
  const mapped = mapError(error, requestId);
  if (mapped.expected) logger.info('mcp request refused', { statusCode: mapped.statusCode });
  else logger.error('mcp request failed', { error: error as Error });
  return rpcError(mapped.statusCode, mapped.statusCode === 500 ? -32603 : -32000, mapped.message, requestId);
}

/**
 * Cross-site requests: a browser page on another site must not reach the endpoint. A request
 * with an `Origin` whose host is neither the request's Host nor listed in `MCP_ALLOWED_ORIGINS`
 * (comma-separated origins or hosts) is refused with 403. This is no DNS-rebinding protection
 * (a rebound name is in both Origin and Host); there, no credential is ambient (no cookies).
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
  if (originHost === host || isAllowedMcpOrigin(origin)) return undefined;
  return rpcError(403, -32000, mcpOriginRefusal(origin), requestId);
}

/**
 * A page of an origin MCP_ALLOWED_ORIGINS lists may read every answer, refusals included (a 401's
 * `WWW-Authenticate` is how a browser-based client finds OAuth): `Access-Control-Allow-Origin`
 * echoes it and the MCP headers are exposed (functions/http/cors.ts). The preflight is answered
 * before the handler (the local HTTP server; in AWS a MOCK OPTIONS method).
 */
function mcpCors(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    after: async (request) => {
      const headers = mcpCorsHeaders(request.event.headers?.origin);
      if (request.response && Object.keys(headers).length) {
        request.response = { ...request.response, headers: { ...request.response.headers, ...headers } };
      }
    },
  };
}

/** A JSON body answered before the request reaches the SDK. */
function jsonAnswer(statusCode: number, body: unknown, requestId: string): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(body),
  };
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

function toRequest(event: APIGatewayProxyEvent, baseUrl: string, parsed: ParsedBody): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (values && values.length > 1 && !CREDENTIAL_HEADERS.includes(name.toLowerCase())) {
      headers.set(name, values.join(', '));
    }
  }
  // Credentials stay out of anything the SDK might echo or log.
  for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  // The SDK refuses (406) an Accept that lacks either type; the answer's form was chosen above
  // (SSE whenever Accept lists text/event-stream, else JSON), so it gets both.
  headers.set('accept', 'application/json, text/event-stream');
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && name !== API_KEY_QUERY_PARAMETER) query.set(name, value);
  }
  const search = query.size ? `?${query.toString()}` : '';
  // A body parsed already goes to the transport as such: the Request needs none.
  const body =
    parsed || event.body === null || event.body === undefined
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

const CREDENTIAL_HEADERS = [API_KEY_HEADER, 'authorization'];

/** Whether getExecutionResults would answer at once: the execution has ended (or does not exist). */
async function isFinished(services: Services, executionId: string): Promise<boolean> {
  const execution = await services.executions.get(executionId).catch(() => undefined);
  return !execution || isTerminal(execution.state);
}
