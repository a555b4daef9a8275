import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLE_DEFINITIONS, type TableDefinitionSpec } from '../aws/dynamo/table-definitions';

export interface LocalDynamo {
  endpoint: string;
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
    // dynalite's close also closes its LevelDB store, so nothing is left half-written.
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error?: Error) => (error ? reject(error) : resolve())),
      ),
  };
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
