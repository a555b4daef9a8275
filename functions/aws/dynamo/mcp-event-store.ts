import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpEventLog, McpStreamEvent } from '../../core/mcp-events';
import { batchPutAll, type Item, queryAll } from './expressions';

/** Bytes of message JSON per item, well under DynamoDB's 400 KB item limit. */
const CHUNK_BYTES = 300_000;
const SEQUENCE_DIGITS = 6;
const PART_DIGITS = 4;

/**
 * SSE events of MCP streams: pk `MCPSTREAM#<streamId>`, sk `EVENT#<6-digit sequence>`, with
 * `accountId`, the JSON-RPC `message` (JSON text) and `ttl` (epoch seconds, DynamoDB TTL).
 * A message over 300 KB (e.g. a rendered image) is split: the event item holds the first chunk of
 * its UTF-8 bytes in `data` and `parts`, and items `EVENT#<sequence>#<part>` the rest. dynalite
 * ignores TTL, so reads drop expired items themselves.
 */
export class DynamoMcpEventLog implements McpEventLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * The events of one response in one BatchWriteItem when each fits one item (the usual case: a
   * priming event and the answer); a larger one is written on its own, parts first.
   */
  async putAll(events: readonly McpStreamEvent[]): Promise<void> {
    const small = events.filter((event) => Buffer.byteLength(JSON.stringify(event.message)) <= CHUNK_BYTES);
    await batchPutAll(
      this.db,
      this.tableName,
      small.map((event) => ({
        pk: streamKey(event.streamId),
        sk: eventKey(event.sequence),
        accountId: event.accountId,
        ttl: event.expiresAt,
        message: JSON.stringify(event.message),
      })),
    );
    for (const event of events) if (!small.includes(event)) await this.put(event);
  }

  async put(event: McpStreamEvent): Promise<void> {
    const base = {
      pk: streamKey(event.streamId),
      accountId: event.accountId,
      ttl: event.expiresAt,
    };
    const json = JSON.stringify(event.message);
    const bytes = Buffer.from(json, 'utf8');
    if (bytes.length <= CHUNK_BYTES) {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...base, sk: eventKey(event.sequence), message: json },
        }),
      );
      return;
    }
    const chunks: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
      chunks.push(bytes.subarray(offset, offset + CHUNK_BYTES));
    }
    // Parts first, the event item last: a reader that sees the event item sees all its parts.
    for (let part = 1; part < chunks.length; part++) {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...base, sk: partKey(event.sequence, part), data: chunks[part] },
        }),
      );
    }
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...base, sk: eventKey(event.sequence), data: chunks[0], parts: chunks.length },
      }),
    );
  }

  async owner(
    streamId: string,
    sequence: number,
  ): Promise<Pick<McpStreamEvent, 'accountId' | 'expiresAt'> | undefined> {
    const { Item: item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: streamKey(streamId), sk: eventKey(sequence) },
        ConsistentRead: true,
        ProjectionExpression: 'accountId, #ttl',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
      }),
    );
    if (!item || isExpired(item)) return undefined;
    return { accountId: String(item.accountId), expiresAt: Number(item.ttl) };
  }

  async listAfter(streamId: string, sequence: number): Promise<McpStreamEvent[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      // From the next sequence on, so the anchor's own parts are left out.
      ExpressionAttributeValues: {
        ':pk': streamKey(streamId),
        ':from': eventKey(sequence + 1),
        ':to': 'EVENT#~',
      },
      ConsistentRead: true,
    });
    const events: McpStreamEvent[] = [];
    let current: { item: Item; chunks: Uint8Array[] } | undefined;
    const finish = () => {
      if (!current) return;
      const { item, chunks } = current;
      current = undefined;
      if (isExpired(item)) return;
      const json =
        typeof item.message === 'string'
          ? item.message
          : chunks.length === Number(item.parts)
            ? Buffer.concat(chunks).toString('utf8')
            : undefined;
      if (json === undefined) return;
      events.push({
        streamId,
        sequence: Number(String(item.sk).slice('EVENT#'.length)),
        accountId: String(item.accountId),
        expiresAt: Number(item.ttl),
        message: JSON.parse(json) as JSONRPCMessage,
      });
    };
    // Items come in sk order: `EVENT#000003`, `EVENT#000003#0001`, …, `EVENT#000004`.
    for (const item of items) {
      const sk = String(item.sk);
      if (sk.length === eventKey(0).length) {
        finish();
        current = { item, chunks: item.data ? [toBytes(item.data)] : [] };
      } else if (current && sk.startsWith(`${String(current.item.sk)}#`) && item.data) {
        current.chunks.push(toBytes(item.data));
      }
    }
    finish();
    return events;
  }
}

function streamKey(streamId: string): string {
  return `MCPSTREAM#${streamId}`;
}

function eventKey(sequence: number): string {
  return `EVENT#${String(sequence).padStart(SEQUENCE_DIGITS, '0')}`;
}

function partKey(sequence: number, part: number): string {
  return `${eventKey(sequence)}#${String(part).padStart(PART_DIGITS, '0')}`;
}

function isExpired(item: Item): boolean {
  return typeof item.ttl === 'number' && item.ttl <= Math.floor(Date.now() / 1000);
}

function toBytes(value: unknown): Uint8Array {
  return value instanceof Uint8Array ? value : Buffer.from(String(value), 'base64');
}
