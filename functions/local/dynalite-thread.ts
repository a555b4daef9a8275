/**
 * The worker thread dynalite runs on for the local host (dynalite.ts, `startDynalite`). It serves
 * the HTTP endpoint other processes use (the admin CLI) and the host's own requests, which come
 * as messages instead of through a socket.
 */
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { memoizeDynaliteExpressionParsers } from './dynalite-expression-cache';
import { cacheDynaliteTableDescriptions } from './dynalite-table-cache';

/** A DynamoDB request from the host's SDK client (dynalite.ts, `ThreadCalls`). */
export interface ToDynaliteThread {
  type: 'request';
  id: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The request's JSON. */
  body: string;
}

export type FromDynaliteThread =
  | { type: 'listening'; port: number }
  | { type: 'response'; id: number; statusCode: number; headers: Record<string, string>; body: string }
  | { type: 'closed' };

export interface DynaliteThreadOptions {
  path?: string;
  port?: number;
}

/**
 * Dynalite checks that a request carries a signature of the right form, never the signature
 * itself, so the host's requests go unsigned (`localDynamoClient`: signing a request cost half
 * of the SDK's work per call) and get this header instead.
 */
const UNSIGNED_REQUEST = {
  authorization:
    'AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=unsigned',
  'x-amz-date': '20200101T000000Z',
};

const port = threadPort();
const options = workerData as DynaliteThreadOptions;
memoizeDynaliteExpressionParsers();
cacheDynaliteTableDescriptions();

const server = dynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  ...(options.path ? { path: options.path } : {}),
});
server.listen(options.port ?? 0, '127.0.0.1', () => {
  port.postMessage({
    type: 'listening',
    port: (server.address() as AddressInfo).port,
  } satisfies FromDynaliteThread);
});

port.on('message', (message: ToDynaliteThread | { type: 'close' }) => {
  if (message.type === 'close') {
    // dynalite's close also closes its LevelDB store, so nothing is left half-written.
    server.close(() => port.postMessage({ type: 'closed' } satisfies FromDynaliteThread));
    return;
  }
  serve(message);
});

/**
 * Calls dynalite's request listener with the request as an in-memory message: it reads the
 * method, url, headers and body events of the request and answers through `setHeader`,
 * `statusCode` and `end`.
 */
function serve(request: ToDynaliteThread): void {
  const incoming = Object.assign(new EventEmitter(), {
    method: request.method,
    url: request.path,
    headers: { ...UNSIGNED_REQUEST, ...request.headers },
  });
  const headers: Record<string, string> = {};
  const outgoing = {
    statusCode: 200,
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    end(data?: string) {
      port.postMessage({
        type: 'response',
        id: request.id,
        statusCode: outgoing.statusCode,
        headers,
        body: data ?? '',
      } satisfies FromDynaliteThread);
    },
  };
  server.emit('request', incoming, outgoing);
  incoming.emit('data', Buffer.from(request.body));
  incoming.emit('end');
}

function threadPort(): MessagePort {
  if (!parentPort) throw new Error('dynalite-thread.ts runs as a worker thread (see startDynalite).');
  return parentPort;
}
