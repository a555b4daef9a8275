import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  return toDocumentClient(new DynamoDBClient(config));
}

export function toDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/** A client for a local endpoint (dynalite): any static credentials do. */
export function localDynamoClient(
  endpoint: string,
  /** Dynalite on a thread of this process: its message handler (functions/local/dynalite.ts). */
  requestHandler?: DynamoDBClientConfig['requestHandler'],
): { client: DynamoDBClient; doc: DynamoDBDocumentClient } {
  const url = new URL(endpoint);
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The endpoint is fixed: no rule set to evaluate per call (about 0.06 ms of CPU each).
    endpointProvider: () => ({ url }),
    // Handed to dynalite's thread, a request needs no signature (functions/local/dynalite.ts):
    // signing was half of the SDK's work per call, on the event loop that serves the API.
    ...(requestHandler ? { requestHandler, signer: { sign: async (request) => request } } : {}),
  });
  if (requestHandler) {
    for (const name of HEADER_AND_LOG_MIDDLEWARE) client.middlewareStack.remove(name);
  }
  return { client, doc: toDocumentClient(client) };
}

/**
 * Steps of the SDK's stack that only write headers dynalite's thread never reads (user agent,
 * host, content length, Lambda trace id) or prepare log lines no one writes (no logger is set).
 * Dropped for that thread's client, they were a third of the SDK's CPU per call on the event loop
 * that serves the API (test/bench/README.md).
 */
const HEADER_AND_LOG_MIDDLEWARE = [
  'loggerMiddleware',
  'getUserAgentMiddleware',
  'hostHeaderMiddleware',
  'contentLengthMiddleware',
  'recursionDetectionMiddleware',
];

/** True for the SDK error a failed ConditionExpression raises. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
