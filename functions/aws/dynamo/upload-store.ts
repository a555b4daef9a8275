import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/errors';
import type { RetiredGeneration, UploadedFile, UploadedTable, UploadStore } from '../../core/uploads';
import { isConditionFailure } from './client';
import { queryAll, queryIndexPartition, withoutKeys } from './expressions';

const INDEX_PARTITION = 'UPLOADS';
/** Retired generations: pk UPLOAD_RETIRED, sk <retired at>#<full name>#<generation>, oldest first. */
const RETIRED_PARTITION = 'UPLOAD_RETIRED';

/**
 * Item layout: pk UPLOAD#<full name>, sk UPLOAD; all tables in the GSI partition UPLOADS. Inserts
 * and clears are single conditional writes on the generation, so an insert racing a clear either
 * lands before it (and is cleared) or fails, never lands in the cleared table's old files.
 */
export class DynamoUploadStore implements UploadStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(fullName: string): Promise<UploadedTable | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys(fullName), ConsistentRead: true }),
    );
    return Item ? (withoutKeys(Item) as unknown as UploadedTable) : undefined;
  }

  async create(table: UploadedTable): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys(table.fullName),
            gsi1pk: INDEX_PARTITION,
            gsi1sk: `${table.accountId}#${table.fullName}`,
            ...table,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError(`Table ${table.fullName} already exists.`);
      throw error;
    }
  }

  async addFile(
    fullName: string,
    generation: string,
    file: UploadedFile,
    updatedAt: string,
  ): Promise<boolean> {
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys(fullName),
        UpdateExpression:
          'SET files = list_append(files, :file), rowCount = rowCount + :rows, sizeBytes = sizeBytes + :bytes, updatedAt = :at',
        ConditionExpression: 'generation = :generation',
        ExpressionAttributeValues: {
          ':file': [file],
          ':rows': file.rows,
          ':bytes': file.bytes,
          ':at': updatedAt,
          ':generation': generation,
        },
      }),
    );
  }

  async clear(
    fullName: string,
    from: string,
    to: string,
    updatedAt: string,
  ): Promise<UploadedTable | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(fullName),
          UpdateExpression:
            'SET generation = :to, files = :none, rowCount = :zero, sizeBytes = :zero, updatedAt = :at',
          ConditionExpression: 'generation = :from',
          ExpressionAttributeValues: { ':to': to, ':from': from, ':none': [], ':zero': 0, ':at': updatedAt },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes ? (withoutKeys(Attributes) as unknown as UploadedTable) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async delete(fullName: string): Promise<UploadedTable | undefined> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys(fullName), ReturnValues: 'ALL_OLD' }),
    );
    return Attributes ? (withoutKeys(Attributes) as unknown as UploadedTable) : undefined;
  }

  async listByAccount(accountId: string): Promise<UploadedTable[]> {
    return this.query(`${accountId}#`);
  }

  async listReadableBy(accountId: string): Promise<UploadedTable[]> {
    const all = await this.query();
    return all.filter((table) => table.accountId === accountId || !table.isPrivate);
  }

  async retire(table: UploadedTable, retiredAt: string): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...retiredKeys({ table, retiredAt }), table, retiredAt },
      }),
    );
  }

  async listRetired(before: string): Promise<RetiredGeneration[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk < :before',
      ExpressionAttributeValues: { ':pk': RETIRED_PARTITION, ':before': before },
      ConsistentRead: true,
    });
    return items.map((item) => ({ table: item.table as UploadedTable, retiredAt: String(item.retiredAt) }));
  }

  async forgetRetired(retired: RetiredGeneration): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: retiredKeys(retired) }));
  }

  private async conditionally(command: UpdateCommand): Promise<boolean> {
    try {
      await this.db.send(command);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async query(prefix?: string): Promise<UploadedTable[]> {
    const items = await queryIndexPartition(this.db, this.tableName, INDEX_PARTITION, prefix);
    return items
      .map((item) => withoutKeys(item) as unknown as UploadedTable)
      .sort((a, b) => a.fullName.localeCompare(b.fullName));
  }
}

function keys(fullName: string) {
  return { pk: `UPLOAD#${fullName}`, sk: 'UPLOAD' };
}

function retiredKeys({ table, retiredAt }: RetiredGeneration) {
  return { pk: RETIRED_PARTITION, sk: `${retiredAt}#${table.fullName}#${table.generation}` };
}
