import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';

export interface SlotWaiter {
  executionId: string;
  taskToken: string;
}

/**
 * The AcquireSlot task tokens of an account's queued executions: items `pk ACCOUNT#<id>`,
 * `sk SLOTWAIT#<execution id>` on the base table, so the oldest waiter (execution ids sort by
 * time) is found with a consistent read right after a slot frees. An item expires (TTL) a day
 * after it was written, past any slot wait.
 */
export class DynamoSlotWaiterStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async put(accountId: string, waiter: SlotWaiter): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...key(accountId, waiter.executionId),
          taskToken: waiter.taskToken,
          ttl: Math.floor(this.now() / 1000) + 86_400,
        },
      }),
    );
  }

  async oldest(accountId: string, limit: number): Promise<SlotWaiter[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':prefix': 'SLOTWAIT#' },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => ({
      executionId: String(item.sk).slice('SLOTWAIT#'.length),
      taskToken: String(item.taskToken),
    }));
  }

  async remove(accountId: string, executionId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: key(accountId, executionId) }));
  }
}

function key(accountId: string, executionId: string) {
  return { pk: `ACCOUNT#${accountId}`, sk: `SLOTWAIT#${executionId}` };
}
