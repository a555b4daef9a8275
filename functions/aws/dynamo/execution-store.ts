import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Execution,
  type ExecutionChanges,
  type ExecutionState,
  type ExecutionStore,
  isTerminal,
} from '../../core/executions';
import { isConditionFailure } from './client';
import { queryAll, setChanges, stateIn, withoutKeys } from './expressions';

const ACTIVE_PARTITION = 'ACTIVE_EXECUTIONS';

/**
 * Item layout: pk EXECUTION#<ulid>, sk EXECUTION. While an execution is pending or executing it is
 * also in the sparse index partition ACTIVE_EXECUTIONS (gsi1sk `<accountId>#<ulid>`), which the
 * terminal transition removes: start-up recovery and queue positions read only live runs.
 */
export class DynamoExecutionStore implements ExecutionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(execution: Execution): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys(execution.executionId),
          ...(isTerminal(execution.state)
            ? {}
            : { gsi1pk: ACTIVE_PARTITION, gsi1sk: `${execution.accountId}#${execution.executionId}` }),
          ttl: Math.floor(Date.parse(execution.expiresAt) / 1000),
          ...execution,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(executionId: string): Promise<Execution | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys(executionId), ConsistentRead: true }),
    );
    return Item ? toExecution(Item) : undefined;
  }

  async transition(
    executionId: string,
    from: readonly ExecutionState[],
    changes: ExecutionChanges,
  ): Promise<Execution | undefined> {
    const update = setChanges(changes);
    const guard = stateIn(from);
    const leavesIndex = changes.state !== undefined && isTerminal(changes.state);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(executionId),
          UpdateExpression: `${update.expression}${leavesIndex ? ' REMOVE gsi1pk, gsi1sk' : ''}`,
          ConditionExpression: `attribute_exists(pk) AND ${guard.condition}`,
          ExpressionAttributeNames: { ...update.names, ...guard.names },
          ExpressionAttributeValues: { ...update.values, ...guard.values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? toExecution(Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async listActive(accountId?: string): Promise<Execution[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: accountId ? 'gsi1pk = :pk AND begins_with(gsi1sk, :account)' : 'gsi1pk = :pk',
      ExpressionAttributeValues: accountId
        ? { ':pk': ACTIVE_PARTITION, ':account': `${accountId}#` }
        : { ':pk': ACTIVE_PARTITION },
    });
    return items.map(toExecution).sort((a, b) => a.executionId.localeCompare(b.executionId));
  }
}

function keys(executionId: string) {
  return { pk: `EXECUTION#${executionId}`, sk: 'EXECUTION' };
}

function toExecution(item: Record<string, unknown>): Execution {
  return withoutKeys(item) as unknown as Execution;
}
