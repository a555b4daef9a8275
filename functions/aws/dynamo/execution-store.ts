import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type Execution,
  type ExecutionChanges,
  type ExecutionState,
  type ExecutionStore,
  isTerminal,
} from '../../core/executions';
import { isConditionFailure } from './client';

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
    const names: Record<string, string> = { '#state': 'state' };
    const values: Record<string, unknown> = {};
    from.forEach((state, i) => {
      values[`:from${i}`] = state;
    });
    const sets: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    const leavesIndex = changes.state !== undefined && isTerminal(changes.state);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(executionId),
          UpdateExpression: `SET ${sets.join(', ')}${leavesIndex ? ' REMOVE gsi1pk, gsi1sk' : ''}`,
          ConditionExpression: `attribute_exists(pk) AND #state IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
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
    const executions: Execution[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: accountId
            ? 'gsi1pk = :pk AND begins_with(gsi1sk, :account)'
            : 'gsi1pk = :pk',
          ExpressionAttributeValues: accountId
            ? { ':pk': ACTIVE_PARTITION, ':account': `${accountId}#` }
            : { ':pk': ACTIVE_PARTITION },
          ExclusiveStartKey: startKey,
        }),
      );
      executions.push(...(page.Items ?? []).map(toExecution));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return executions.sort((a, b) => a.executionId.localeCompare(b.executionId));
  }
}

function keys(executionId: string) {
  return { pk: `EXECUTION#${executionId}`, sk: 'EXECUTION' };
}

function toExecution(item: Record<string, unknown>): Execution {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ttl: _ttl, ...execution } = item;
  return execution as unknown as Execution;
}
