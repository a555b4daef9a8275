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
  return { client, doc: toDocumentClient(client) };
}

/** True for the SDK error a failed ConditionExpression raises. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
