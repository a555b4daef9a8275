import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLE_DEFINITIONS, type TableDefinitionSpec } from '../aws/dynamo/table-definitions';

export interface LocalDynamo {
  endpoint: string;
  /**
   * For a client in this process: hands each request to dynalite directly instead of through a
   * socket (the same wire API, signed and validated alike), at about half the CPU per call.
   * Other processes (the admin CLI) use `endpoint`.
   */
  requestHandler: NonNullable<DynamoDBClientConfig['requestHandler']>;
  close(): Promise<void>;
}

/**
 * Starts dynalite in this process: the real DynamoDB wire API, stored on disk (LevelDB) when a
 * path is given so data survives restarts, in memory otherwise.
 */
export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<LocalDynamo> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path ? { path: options.path } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requestHandler: inProcessHandler(server),
    // dynalite's close also closes its LevelDB store, so nothing is left half-written.
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error?: Error) => (error ? reject(error) : resolve())),
      ),
  };
}

interface SdkRequest {
  method: string;
  path?: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * Dynalite checks that a request carries a signature of the right form, never the signature
 * itself, so requests handed over in process go unsigned (`localDynamoClient`: signing a request
 * cost half of the SDK's work per call) and get this header instead.
 */
const UNSIGNED_REQUEST = {
  authorization:
    'AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=unsigned',
  'x-amz-date': '20200101T000000Z',
};

/**
 * An SDK request handler that calls dynalite's request listener with the request as an in-memory
 * message. The host runs dynalite in its own process, where every DynamoDB call paid for HTTP
 * twice (client and server) on the event loop the requests are served from. Dynalite's listener
 * reads the method, url, headers and body events of the request and answers through `setHeader`,
 * `statusCode` and `end`; the SDK reads any `{ statusCode, headers, body }` as a response.
 */
function inProcessHandler(server: Server): LocalDynamo['requestHandler'] {
  const handle = (request: SdkRequest) =>
    new Promise<{ response: { statusCode: number; headers: Record<string, string>; body: Readable } }>(
      (resolve) => {
        const body =
          request.body === undefined
            ? Buffer.alloc(0)
            : typeof request.body === 'string'
              ? Buffer.from(request.body)
              : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
        const incoming = Object.assign(new EventEmitter(), {
          method: request.method,
          url: request.path ?? '/',
          headers: {
            ...UNSIGNED_REQUEST,
            ...Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
          },
        });
        const headers: Record<string, string> = {};
        const outgoing = {
          statusCode: 200,
          setHeader(name: string, value: unknown) {
            headers[name.toLowerCase()] = String(value);
          },
          end(data?: string) {
            const response = {
              statusCode: outgoing.statusCode,
              headers,
              body: Readable.from([Buffer.from(data ?? '')]),
            };
            resolve({ response });
          },
        };
        server.emit('request', incoming, outgoing);
        incoming.emit('data', body);
        incoming.emit('end');
      },
    );
  return { handle, updateHttpClientConfig() {}, httpHandlerConfigs: () => ({}) } as never;
}

/** Creates the tables the CDK stack declares (same keys and indexes), skipping existing ones. */
export async function ensureTables(client: DynamoDBClient, definitions = TABLE_DEFINITIONS): Promise<void> {
  for (const definition of definitions) {
    if ((await tableStatus(client, definition.localName)) === undefined) {
      await client.send(new CreateTableCommand(createTableInput(definition)));
    }
    await untilActive(client, definition.localName);
  }
}

/**
 * A table answers reads and writes only once ACTIVE (dynalite, like DynamoDB, refuses a CREATING
 * table with ResourceNotFoundException), even with dynalite's creation delay set to 0.
 */
async function untilActive(client: DynamoDBClient, tableName: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await tableStatus(client, tableName);
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline) {
      throw new Error(`Local table ${tableName} is ${status ?? 'missing'} after ${timeoutMs} ms.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function createTableInput(definition: TableDefinitionSpec) {
  const keys = [
    definition.partitionKey,
    definition.sortKey,
    ...definition.globalSecondaryIndexes.flatMap((g) => [g.partitionKey, g.sortKey]),
  ].filter((key): key is NonNullable<typeof key> => key !== undefined);
  const attributeDefinitions = [...new Map(keys.map((key) => [key.name, key])).values()].map((key) => ({
    AttributeName: key.name,
    AttributeType: key.type,
  }));
  const keySchema = (partition: { name: string }, sort?: { name: string }) => [
    { AttributeName: partition.name, KeyType: 'HASH' as const },
    ...(sort ? [{ AttributeName: sort.name, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName: definition.localName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: attributeDefinitions,
    KeySchema: keySchema(definition.partitionKey, definition.sortKey),
    ...(definition.globalSecondaryIndexes.length
      ? {
          GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: keySchema(index.partitionKey, index.sortKey),
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
  };
}

async function tableStatus(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table?.TableStatus;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}
