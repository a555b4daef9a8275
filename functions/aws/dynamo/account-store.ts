import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account, AccountStore, ApiKeyRecord } from '../../core/accounts';
import { ConflictError, NotFoundError } from '../../core/errors';
import { isConditionFailure } from './client';
import { queryAll } from './expressions';

/**
 * Item layout (single table):
 * - account:      pk ACCOUNT#<id>       sk PROFILE      gsi1pk ACCOUNTS  gsi1sk <id>
 * - handle claim: pk HANDLE#<handle>    sk HANDLE       (makes handles unique without transactions)
 * - API key:      pk APIKEY#<keyId>     sk APIKEY       gsi1pk ACCOUNT#<id>  gsi1sk APIKEY#<keyId>
 */
export class DynamoAccountStore implements AccountStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createAccount(account: Account): Promise<void> {
    // Claim the handle first: it is the uniqueness guard. An orphaned claim (crash between the two
    // writes) only blocks that handle, it never yields a half-made account.
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `HANDLE#${account.handle}`, sk: 'HANDLE', accountId: account.accountId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error))
        throw new ConflictError(`The handle "${account.handle}" is already taken.`);
      throw error;
    }
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: `ACCOUNT#${account.accountId}`,
          sk: 'PROFILE',
          gsi1pk: 'ACCOUNTS',
          gsi1sk: account.accountId,
          ...account,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getAccount(accountId: string): Promise<Account | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' } }),
    );
    return Item ? toAccount(Item) : undefined;
  }

  async getAccountByHandle(handle: string): Promise<Account | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: `HANDLE#${handle}`, sk: 'HANDLE' } }),
    );
    return Item ? this.getAccount(String(Item.accountId)) : undefined;
  }

  async listAccounts(): Promise<Account[]> {
    const items = await this.queryIndex('ACCOUNTS');
    return items.map(toAccount);
  }

  async putApiKey(record: ApiKeyRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: `APIKEY#${record.keyId}`,
          sk: 'APIKEY',
          gsi1pk: `ACCOUNT#${record.accountId}`,
          gsi1sk: `APIKEY#${record.keyId}`,
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: `APIKEY#${keyId}`, sk: 'APIKEY' },
        ConsistentRead: true,
      }),
    );
    return Item ? toApiKey(Item) : undefined;
  }

  async listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const items = await this.queryIndex(`ACCOUNT#${accountId}`, 'APIKEY#');
    return items.map(toApiKey);
  }

  async revokeApiKey(keyId: string, revokedAt: string): Promise<ApiKeyRecord> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `APIKEY#${keyId}`, sk: 'APIKEY' },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': revokedAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toApiKey(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`No API key with id ${keyId}.`);
      throw error;
    }
  }

  private queryIndex(partition: string, sortPrefix?: string): Promise<Record<string, unknown>[]> {
    return queryAll(this.db, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: sortPrefix ? 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)' : 'gsi1pk = :pk',
      ExpressionAttributeValues: sortPrefix
        ? { ':pk': partition, ':prefix': sortPrefix }
        : { ':pk': partition },
    });
  }
}

function toAccount(item: Record<string, unknown>): Account {
  return {
    accountId: String(item.accountId),
    handle: String(item.handle),
    name: String(item.name),
    createdAt: String(item.createdAt),
  };
}

function toApiKey(item: Record<string, unknown>): ApiKeyRecord {
  return {
    keyId: String(item.keyId),
    accountId: String(item.accountId),
    prefix: String(item.prefix),
    secretHash: String(item.secretHash),
    name: String(item.name),
    createdAt: String(item.createdAt),
    ...(item.revokedAt ? { revokedAt: String(item.revokedAt) } : {}),
    ...(item.lastUsedAt ? { lastUsedAt: String(item.lastUsedAt) } : {}),
    ...(item.account ? { account: toAccount(item.account as Record<string, unknown>) } : {}),
  };
}
