import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
  type MessageExtraInfo,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport that carries one JSON-RPC request in and its one response out, and stays connected
 * between requests: the server it is connected to is neither reconnected nor closed per request.
 * It serves only what the SDK's Streamable HTTP transport would hand to the server untouched and
 * answer with one JSON response (see `directExchangeRequest`); the server's protocol handling,
 * argument and result validation are the SDK's own either way.
 *
 * Notifications the server sends while answering (progress, logging) have no channel in a JSON
 * answer and are dropped, as the SDK's transport drops them in its JSON mode; requests that ask for
 * progress are streamed instead (tool-arguments.ts, `answersAsStream`).
 */
export class JsonExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private readonly waiting = new Map<RequestId, (answer: JSONRPCMessage) => void>();

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // The server's own messages: a response carries the id of the request it answers (a schema
    // check of the whole result here would cost more than the exchange itself).
    if (!('result' in message) && !('error' in message)) return;
    const id = (message as { id?: RequestId }).id;
    if (id === undefined) return;
    const answer = this.waiting.get(id);
    this.waiting.delete(id);
    answer?.(message);
  }

  /** A request still waiting gets the JSON-RPC error the SDK gives for a closed connection. */
  async close(): Promise<void> {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const [id, answer] of waiting) {
      answer({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.ConnectionClosed, message: 'Connection closed' },
      });
    }
    this.onclose?.();
  }

  /** Hands the request to the server; settles with the server's response to it. */
  exchange(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCMessage> {
    if (!this.onmessage) return Promise.reject(new Error('The exchange transport is not connected.'));
    if (this.waiting.has(request.id)) {
      return Promise.reject(new Error(`A request with id ${String(request.id)} is already waiting.`));
    }
    return new Promise((resolve) => {
      this.waiting.set(request.id, resolve);
      this.onmessage!(request, extra);
    });
  }
}

/**
 * The request, when the SDK's transport would pass the POST straight to the server: a single
 * JSON-RPC request (not a batch, not a notification, not `initialize`, whose answer depends on
 * the transport's state) with a JSON content type and, if given, a supported
 * `MCP-Protocol-Version`. Anything else returns undefined and goes through the SDK's transport,
 * which answers it (and its errors: -32700, 400, 415) as it always has.
 */
export function directExchangeRequest(
  body: unknown,
  headers: Record<string, string | undefined>,
): JSONRPCRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  if ((body as { method?: unknown }).method === 'initialize') return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
