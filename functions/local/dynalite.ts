import { Worker } from 'node:worker_threads';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITIONS, type TableDefinitionSpec } from '../aws/dynamo/table-definitions';
import type { DynaliteThreadOptions, FromDynaliteThread, ToDynaliteThread } from './dynalite-thread';
import { tsxLoader } from './tsx-loader';

export interface LocalDynamo {
  endpoint: string;
  /**
   * For a client in this process: hands each request to dynalite's thread as a message instead
   * of through a socket (the same wire API, validated alike). Other processes (the admin CLI)
   * use `endpoint`.
   */
  requestHandler: NonNullable<DynamoDBClientConfig['requestHandler']>;
  close(): Promise<void>;
}

const THREAD_SCRIPT = new URL('./dynalite-thread.ts', import.meta.url);

/**
 * Starts dynalite on a worker thread: the real DynamoDB wire API, stored on disk (LevelDB) when a
 * path is given so data survives restarts, in memory otherwise. On the host's own thread it cost
 * about half of a pipeline run's main-thread CPU (its JavaScript and LevelDB's calls), time the
 * event loop that serves the API could not use; on its own thread it runs beside it.
 */
export async function startDynalite(options: DynaliteThreadOptions = {}): Promise<LocalDynamo> {
  const thread = new Worker(THREAD_SCRIPT, {
    workerData: options,
    execArgv: THREAD_SCRIPT.pathname.endsWith('.ts') ? ['--import', tsxLoader()] : [],
  });
  const calls = new ThreadCalls(thread);
  let listened: (port: number) => void = () => undefined;
  let closed: () => void = () => undefined;
  const listening = new Promise<number>((resolve, reject) => {
    listened = resolve;
    calls.exited.then(reject);
  });
  thread.on('message', (message: FromDynaliteThread) => {
    if (message.type === 'listening') listened(message.port);
    else if (message.type === 'closed') closed();
    else calls.answer(message);
  });
  const port = await listening;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requestHandler: calls.requestHandler(),
    close: async () => {
      // dynalite closes its LevelDB store first, so nothing is left half-written.
      const storeClosed = new Promise<void>((resolve) => {
        closed = resolve;
        thread.postMessage({ type: 'close' });
      });
      await Promise.race([storeClosed, calls.exited]);
      await thread.terminate();
    },
  };
}

interface SdkRequest {
  method: string;
  path?: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

interface SdkResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** Bytes, not a stream: the SDK then reads the body as is, with no stream to collect. */
  body: Uint8Array;
}

/**
 * The host's calls to dynalite's thread: each request is posted with an id and resolved by the
 * answer of that id. The SDK reads any `{ statusCode, headers, body }` as a response.
 */
class ThreadCalls {
  /** Resolves with the reason once the thread is gone; every call in flight or later fails with it. */
  readonly exited: Promise<Error>;
  private readonly pending = new Map<
    number,
    { resolve(answer: { response: SdkResponse }): void; reject(error: Error): void }
  >();
  private nextId = 0;
  private gone?: Error;

  constructor(private readonly thread: Worker) {
    let lastError: Error | undefined;
    thread.on('error', (error) => {
      lastError = error;
    });
    this.exited = new Promise((resolve) => {
      thread.once('exit', (code) => {
        const reason = lastError ? `: ${lastError.message}` : '';
        this.gone = new Error(`dynalite's thread exited (code ${code})${reason}`);
        for (const call of this.pending.values()) call.reject(this.gone);
        this.pending.clear();
        resolve(this.gone);
      });
    });
  }

  requestHandler(): LocalDynamo['requestHandler'] {
    const handle = (request: SdkRequest) =>
      new Promise<{ response: SdkResponse }>((resolve, reject) => {
        if (this.gone) return reject(this.gone);
        const id = this.nextId++;
        this.pending.set(id, { resolve, reject });
        this.thread.postMessage({
          type: 'request',
          id,
          method: request.method,
          path: request.path ?? '/',
          headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
          body: bodyText(request.body),
        } satisfies ToDynaliteThread);
      });
    return { handle, updateHttpClientConfig() {}, httpHandlerConfigs: () => ({}) } as never;
  }

  answer({ id, statusCode, headers, body }: Extract<FromDynaliteThread, { type: 'response' }>): void {
    this.pending.get(id)?.resolve({ response: { statusCode, headers, body: Buffer.from(body) } });
    this.pending.delete(id);
  }
}

/**
 * The request's JSON as a string. The SDK hands it over as a view into a pooled 8 KiB buffer,
 * which posting to the thread would copy whole for every call.
 */
function bodyText(body: SdkRequest['body']): string {
  if (body === undefined || typeof body === 'string') return body ?? '';
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
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
