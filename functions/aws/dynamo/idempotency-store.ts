import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyStore,
  IdempotentAnswer,
} from '../../core/idempotency';
import { isConditionFailure } from './client';

/**
 * One item per account and key: `pk IDEMPOTENCY#<account id>#<key>`, `sk IDEMPOTENCY`, expiring
 * (TTL) with its record. A claim is one conditional put, so two requests racing with one key
 * cannot both run; the loser then reads the winner's record.
 */
export class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(record: IdempotencyRecord, staleAfterMs: number): Promise<IdempotencyClaim> {
    const now = new Date(record.createdAt);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keyOf(record.accountId, record.key),
            ...record,
            ttl: Math.ceil(Date.parse(record.expiresAt) / 1000),
          },
          // Free, expired (dynalite never deletes), or an in-progress claim whose request died.
          ConditionExpression:
            'attribute_not_exists(pk) OR expiresAt < :now OR (#state = :inProgress AND createdAt < :stale)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':now': now.toISOString(),
            ':inProgress': 'in_progress',
            ':stale': new Date(now.getTime() - staleAfterMs).toISOString(),
          },
        }),
      );
      return { outcome: 'claimed' };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keyOf(record.accountId, record.key),
        ConsistentRead: true,
      }),
    );
    // Released between the two calls: the key is free again, and this request may claim it.
    if (!Item) return this.claim(record, staleAfterMs);
    const { pk: _pk, sk: _sk, ttl: _ttl, ...held } = Item;
    return { outcome: 'taken', record: held as unknown as IdempotencyRecord };
  }

  async complete(accountId: string, key: string, answer: IdempotentAnswer): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keyOf(accountId, key),
        UpdateExpression: 'SET #state = :completed, answer = :answer',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':completed': 'completed', ':answer': answer },
      }),
    );
  }

  async release(accountId: string, key: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keyOf(accountId, key) }));
  }
}

function keyOf(accountId: string, key: string) {
  return { pk: `IDEMPOTENCY#${accountId}#${key}`, sk: 'IDEMPOTENCY' };
}
