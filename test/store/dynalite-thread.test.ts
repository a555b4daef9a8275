/**
 * The local host's DynamoDB client hands requests to dynalite's worker thread as messages (no
 * socket). Every answer must be what dynalite sends over HTTP: items, conditional failures and
 * validation errors alike; data must outlive a restart on disk; a thread that is gone must fail
 * calls with a clear error instead of leaving them waiting.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';

const TableName = SERVICE_TABLE.localName;

describe('dynalite on its thread', () => {
  let dynamo: LocalDynamo;
  let overHttp: ReturnType<typeof localDynamoClient>['doc'];
  let onThread: ReturnType<typeof localDynamoClient>['doc'];
  beforeAll(async () => {
    dynamo = await startDynalite();
    const http = localDynamoClient(dynamo.endpoint);
    await ensureTables(http.client);
    overHttp = http.doc;
    onThread = localDynamoClient(dynamo.endpoint, dynamo.requestHandler).doc;
  });
  afterAll(() => dynamo?.close());

  /** The outcome of a call without its per-request metadata: the answer, or the error's name and message. */
  const outcome = async (call: Promise<{ $metadata?: unknown }>) => {
    try {
      const { $metadata, ...answer } = await call;
      return { answer };
    } catch (error) {
      return { error: (error as Error).name, message: (error as Error).message };
    }
  };

  let overHttpOutcomes: unknown;

  it('answers reads, writes, failed conditions and validation errors as over HTTP', async () => {
    const item = {
      pk: 'ACCOUNT#a',
      sk: 'ITEM#1',
      n: 1,
      text: 'naïve ✓ "quoted"',
      list: [1, 'two', { three: 3 }],
    };
    for (const [label, client] of [
      ['http', overHttp],
      ['thread', onThread],
    ] as const) {
      const key = { pk: `ACCOUNT#${label}`, sk: 'ITEM#1' };
      await client.send(new PutCommand({ TableName, Item: { ...item, ...key } }));
      /** Adds one to `n` if it is 1: succeeds once, then fails its condition. */
      const addOneToOne = () =>
        new UpdateCommand({
          TableName,
          Key: key,
          UpdateExpression: 'ADD n :one',
          ConditionExpression: 'n = :n',
          ExpressionAttributeValues: { ':one': 1, ':n': 1 },
          ReturnValues: 'ALL_NEW',
        });
      const calls = {
        get: await outcome(client.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }))),
        update: await outcome(client.send(addOneToOne())),
        conditionFails: await outcome(client.send(addOneToOne())),
        invalid: await outcome(client.send(new GetCommand({ TableName, Key: { pk: key.pk } }))),
        query: await outcome(
          client.send(
            new QueryCommand({
              TableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': key.pk },
            }),
          ),
        ),
      };
      const expected = JSON.parse(JSON.stringify(calls).replaceAll(`ACCOUNT#${label}`, 'ACCOUNT#x'));
      if (label === 'http') {
        expect(calls.get.answer).toEqual({ Item: { ...item, ...key } });
        expect(calls.update.answer).toMatchObject({ Attributes: { n: 2 } });
        expect(calls.conditionFails.error).toBe('ConditionalCheckFailedException');
        expect(calls.invalid.error).toBe('ValidationException');
        expect(calls.query.answer).toMatchObject({ Count: 1 });
        overHttpOutcomes = expected;
      } else {
        expect(expected).toEqual(overHttpOutcomes);
      }
    }
  });

  it('hands requests over unsigned (dynalite checks only that a signature is present)', async () => {
    const seen: Record<string, string>[] = [];
    const handler = dynamo.requestHandler as unknown as {
      handle(request: { headers: Record<string, string> }): Promise<unknown>;
    };
    const watching = {
      ...handler,
      handle: (request: { headers: Record<string, string> }) => {
        seen.push({ ...request.headers });
        return handler.handle(request);
      },
    };
    const client = localDynamoClient(dynamo.endpoint, watching as never).doc;
    const key = { pk: 'ACCOUNT#unsigned', sk: 'ITEM#1' };
    await client.send(new PutCommand({ TableName, Item: { ...key, n: 1 } }));
    expect((await client.send(new GetCommand({ TableName, Key: key }))).Item).toEqual({ ...key, n: 1 });
    expect(seen).toHaveLength(2);
    expect(seen.some((headers) => Object.keys(headers).some((name) => /^authorization$/i.test(name)))).toBe(
      false,
    );
  });
});

describe('dynalite thread lifetime', () => {
  const key = { pk: 'ACCOUNT#kept', sk: 'ITEM#1' };

  it('keeps data on disk across a restart, and closes its store when closed', async () => {
    const path = await mkdtemp(join(tmpdir(), 'dynalite-thread-'));
    try {
      const first = await startDynalite({ path });
      const firstClient = localDynamoClient(first.endpoint, first.requestHandler);
      await ensureTables(firstClient.client);
      await firstClient.doc.send(new PutCommand({ TableName, Item: { ...key, n: 7 } }));
      await first.close();

      // A second thread opens the same LevelDB store only if the first closed it.
      const second = await startDynalite({ path });
      try {
        const { doc } = localDynamoClient(second.endpoint, second.requestHandler);
        expect((await doc.send(new GetCommand({ TableName, Key: key }))).Item).toEqual({ ...key, n: 7 });
      } finally {
        await second.close();
      }
    } finally {
      await rm(path, { recursive: true, force: true });
    }
  });

  it('fails calls with a clear error once the thread is gone', async () => {
    const dynamo = await startDynalite();
    const { client, doc } = localDynamoClient(dynamo.endpoint, dynamo.requestHandler);
    await ensureTables(client);
    await dynamo.close();
    await expect(doc.send(new GetCommand({ TableName, Key: key }))).rejects.toThrow(
      /dynalite's thread exited/,
    );
    // Closing again is harmless.
    await dynamo.close();
  });
});
