import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../../core/errors';
import type { QueryChanges, QueryStore, SavedQuery } from '../../core/queries';
import { isConditionFailure } from './client';
import { queryAll, setChanges, withoutKeys } from './expressions';

/**
 * Item layout:
 * - id counter: pk COUNTER  sk QUERY_ID  (atomic ADD)
 * - query:      pk QUERY#<id>  sk QUERY  gsi1pk ACCOUNT#<accountId>#QUERIES  gsi1sk <zero-padded id>
 */
export class DynamoQueryStore implements QueryStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async nextQueryId(): Promise<number> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: 'COUNTER', sk: 'QUERY_ID' },
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.value);
  }

  async create(query: SavedQuery): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys(query.queryId), ...indexKeys(query), ...query },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(queryId: number): Promise<SavedQuery | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys(queryId), ConsistentRead: true }),
    );
    return Item ? toQuery(Item) : undefined;
  }

  async update(
    queryId: number,
    expectedVersion: number,
    changes: QueryChanges,
    updatedAt: string,
  ): Promise<SavedQuery> {
    const update = setChanges({ ...changes, updatedAt });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(queryId),
          UpdateExpression: `${update.expression} ADD #version :one`,
          ConditionExpression: 'attribute_exists(pk) AND #version = :expected',
          ExpressionAttributeNames: { ...update.names, '#version': 'version' },
          ExpressionAttributeValues: { ...update.values, ':expected': expectedVersion, ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toQuery(Attributes ?? {});
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.get(queryId);
      if (!current) throw new NotFoundError(`Query ${queryId} not found.`);
      throw new ConflictError(
        `Query ${queryId} changed meanwhile (now version ${current.version}); read it again and retry your change.`,
      );
    }
  }

  async setLatestCompletedExecution(queryId: number, executionId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(queryId),
          UpdateExpression: 'SET latestCompletedExecutionId = :id',
          // ULIDs sort by time: never replace a newer result with an older one.
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(latestCompletedExecutionId) OR latestCompletedExecutionId < :id)',
          ExpressionAttributeValues: { ':id': executionId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async listByAccount(
    accountId: string,
    limit: number,
    offset: number,
  ): Promise<{ queries: SavedQuery[]; total: number }> {
    const all = (
      await queryAll(this.db, {
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}#QUERIES` },
        ScanIndexForward: false,
      })
    ).map(toQuery);
    return { queries: all.slice(offset, offset + limit), total: all.length };
  }
}

function keys(queryId: number) {
  return { pk: `QUERY#${queryId}`, sk: 'QUERY' };
}

function indexKeys(query: SavedQuery) {
  return { gsi1pk: `ACCOUNT#${query.accountId}#QUERIES`, gsi1sk: String(query.queryId).padStart(12, '0') };
}

function toQuery(item: Record<string, unknown>): SavedQuery {
  return withoutKeys(item) as unknown as SavedQuery;
}
