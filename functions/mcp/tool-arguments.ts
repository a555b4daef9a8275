import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** A POST's body parsed once for every reader; `undefined` when the transport should read it. */
export type ParsedBody = { value: unknown } | undefined;

/**
 * The POST's JSON body, parsed once for the checks below and handed to the transport (which
 * then neither reads nor parses it again). A body that is not JSON, or longer than the SDK's own
 * limit, is left to the transport, so it answers -32700 or 413 as it always has.
 */
export function parseBody(event: APIGatewayProxyEvent): ParsedBody {
  const text = bodyText(event);
  if (Buffer.byteLength(text) > DEFAULT_MAX_REQUEST_BODY_SIZE) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * A message the SDK would answer badly, answered here instead (undefined for anything else):
 * - an empty batch `[]`, which the SDK accepts with a bare 202; JSON-RPC 2.0 answers it with one
 *   Invalid Request error;
 * - `tools/call` without a tool name: the SDK's answer is a -32603 "internal error" holding its
 *   raw validation dump; this is -32602 Invalid params with what to send;
 * - `tools/call` whose `params` or `params.arguments` is not a JSON object (null, a list, a
 *   string, a number): a tool result with `isError` that says what to send.
 */
export function malformedToolCallAnswer(body: ParsedBody): JSONRPCMessage | undefined {
  const message = body?.value;
  if (Array.isArray(message) && message.length === 0) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: the batch is empty. Send one JSON-RPC request object.',
      },
    } as unknown as JSONRPCMessage; // JSON-RPC answers an unidentifiable request with id null
  }
  if (!isObject(message) || message.method !== 'tools/call') return undefined;
  const { id, params } = message;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (isObject(params) && typeof params.name !== 'string') {
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32602,
        message: `Invalid params: tools/call needs "name", the tool's name as a string (got ${describe(params.name)}), e.g. {"name": "searchTables", "arguments": {"query": "dex trades"}}; tools/list gives the names.`,
      },
    };
  }
  const tool = isObject(params) && typeof params.name === 'string' ? params.name : undefined;
  let problem: string | undefined;
  if (!isObject(params))
    problem = `params must be an object {"name": ..., "arguments": {...}}, not ${describe(params)}`;
  else if ('arguments' in params && !isObject(params.arguments)) {
    problem = `arguments must be a JSON object of named arguments such as {"queryId": 42}, not ${describe(params.arguments)}`;
  }
  if (!problem) return undefined;
  const text = `Invalid tools/call${tool ? ` of ${tool}` : ''}: ${problem}. Send {} (or leave arguments out) for a tool without arguments; tools/list gives each tool's inputSchema with the argument names and types.`;
  return toolErrorAnswer(id, text);
}

/** The answer to a `tools/call` refused before it reaches its tool: a tool result with `isError`. */
export function toolErrorAnswer(id: string | number, text: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } };
}

/** The id and tool name of a POST that is one `tools/call` (not a batch); undefined otherwise. */
export function calledTool(body: ParsedBody): { id: string | number; name: string } | undefined {
  const message = body?.value;
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) return undefined;
  const { id } = message;
  const { name } = message.params;
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof name !== 'string') return undefined;
  return { id, name };
}

/**
 * Whether a POST is answered as an SSE stream: any request that asks for progress notifications
 * (`_meta.progressToken`), or a getExecutionResults call that will wait (its execution has not
 * finished and timeoutSeconds is not 0). Such answers may take seconds or carry several messages,
 * so their events are persisted for resumption (GET with Last-Event-ID). Everything else is
 * answered at once with one JSON response, which the Streamable HTTP spec lets the server choose,
 * and skips the event store's writes. `isFinished` reads an execution's state (finished ones come
 * from the in-memory cache).
 */
export async function answersAsStream(
  body: ParsedBody,
  isFinished: (executionId: string) => Promise<boolean>,
): Promise<boolean> {
  if (!body) return false; // the SDK answers a parse error, as JSON
  const { value } = body;
  for (const message of Array.isArray(value) ? value : [value]) {
    if (!isObject(message) || !isObject(message.params)) continue;
    const { params } = message;
    if (isObject(params._meta) && params._meta.progressToken !== undefined) return true;
    if (message.method !== 'tools/call' || params.name !== 'getExecutionResults') continue;
    const args = isObject(params.arguments) ? params.arguments : {};
    if (args.timeoutSeconds === 0) continue;
    if (typeof args.executionId !== 'string' || !(await isFinished(args.executionId))) return true;
  }
  return false;
}

function bodyText(event: APIGatewayProxyEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value === undefined) return 'missing';
  return `a ${typeof value} (${JSON.stringify(value).slice(0, 40)})`;
}
