import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../../core/errors';
import {
  type MaterializedView,
  type MaterializedViewStore,
  type PublishedVersion,
  type ScheduleError,
  withRefreshRecorded,
} from '../../core/materialized-views';
import { isConditionFailure } from './client';
import { queryIndexPartition, setChanges, withoutKeys } from './expressions';

const INDEX_PARTITION = 'MATERIALIZED_VIEWS';

/** Item layout: pk MV#<full name>, sk MV; all views in the GSI partition MATERIALIZED_VIEWS. */
/** Tries at recording a refresh while other refreshes of the same view are recorded meanwhile. */
const RECORD_REFRESH_ATTEMPTS = 5;

export class DynamoMaterializedViewStore implements MaterializedViewStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(fullName: string): Promise<MaterializedView | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys(fullName), ConsistentRead: true }),
    );
    return Item ? toView(Item) : undefined;
  }

  async create(view: MaterializedView): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys(view.fullName),
            gsi1pk: INDEX_PARTITION,
            gsi1sk: `${view.accountId}#${view.fullName}`,
            ...view,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error))
        throw new ConflictError(`Materialized view ${view.fullName} already exists.`);
      throw error;
    }
  }

  async update(
    fullName: string,
    changes: Partial<Pick<MaterializedView, 'isPrivate' | 'performance' | 'schedule'>>,
    updatedAt: string,
  ): Promise<MaterializedView> {
    const update = setChanges({ ...changes, updatedAt }, { removeUndefined: true });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(fullName),
          UpdateExpression: update.expression,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toView(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`Materialized view ${fullName} not found.`);
      throw error;
    }
  }

  async recordRefresh(fullName: string, executionId: string, knownIds?: readonly string[]): Promise<void> {
    let seen = knownIds;
    for (let attempt = 0; attempt < RECORD_REFRESH_ATTEMPTS; attempt++) {
      seen ??= (await this.get(fullName))?.lastExecutionIds;
      if (!seen) return; // the view is gone
      if (await this.claimRefresh(fullName, executionId, seen)) return;
      seen = undefined; // another refresh was recorded (or the view deleted): read it again
    }
    throw new Error(`Could not record refresh ${executionId} of ${fullName}: the view kept changing.`);
  }

  async claimRefresh(fullName: string, executionId: string, seenIds: readonly string[]): Promise<boolean> {
    try {
      // The list changes only by a new id put first: if its first id is still the one seen, no
      // other refresh was recorded since, and nothing is lost by writing the whole list.
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(fullName),
          UpdateExpression: 'SET lastExecutionIds = :ids',
          ConditionExpression: seenIds.length
            ? 'attribute_exists(pk) AND lastExecutionIds[0] = :first'
            : 'attribute_exists(pk) AND attribute_not_exists(lastExecutionIds[0])',
          ExpressionAttributeValues: {
            ':ids': withRefreshRecorded(seenIds, executionId),
            ...(seenIds.length ? { ':first': seenIds[0] } : {}),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async publish(fullName: string, version: PublishedVersion): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(fullName),
          UpdateExpression:
            'SET currentExecutionId = :id, #columns = :columns, rowCount = :rows, tableSizeBytes = :bytes, lastRefreshedAt = :at',
          // ULIDs sort by time: an older refresh finishing late never replaces a newer version.
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(currentExecutionId) OR currentExecutionId < :id)',
          ExpressionAttributeNames: { '#columns': 'columns' },
          ExpressionAttributeValues: {
            ':id': version.executionId,
            ':columns': version.columns,
            ':rows': version.rowCount,
            ':bytes': version.tableSizeBytes,
            ':at': version.refreshedAt,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async recordScheduleError(fullName: string, error: ScheduleError | undefined): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(fullName),
          UpdateExpression: error ? 'SET scheduleError = :error' : 'REMOVE scheduleError',
          ConditionExpression: 'attribute_exists(pk)',
          ...(error ? { ExpressionAttributeValues: { ':error': error } } : {}),
        }),
      );
    } catch (failure) {
      if (!isConditionFailure(failure)) throw failure; // the view is gone: nothing to record
    }
  }

  async delete(fullName: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys(fullName) }));
  }

  async listByAccount(accountId: string): Promise<MaterializedView[]> {
    return this.query(`${accountId}#`);
  }

  async listReadableBy(accountId: string): Promise<MaterializedView[]> {
    const all = await this.query();
    return all.filter((view) => view.accountId === accountId || !view.isPrivate);
  }

  private async query(prefix?: string): Promise<MaterializedView[]> {
    const items = await queryIndexPartition(this.db, this.tableName, INDEX_PARTITION, prefix);
    return items.map(toView).sort((a, b) => a.fullName.localeCompare(b.fullName));
  }
}

function keys(fullName: string) {
  return { pk: `MV#${fullName}`, sk: 'MV' };
}

function toView(item: Record<string, unknown>): MaterializedView {
  return { lastExecutionIds: [], ...withoutKeys(item) } as unknown as MaterializedView;
}
