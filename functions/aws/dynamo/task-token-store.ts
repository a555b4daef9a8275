import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TaskTokenStore } from '../step-functions-gate';

/** Task tokens live on the pipeline node item (pk PIPELINE#<id>, sk NODE#<id>) as `taskToken`. */
export class DynamoTaskTokenStore implements TaskTokenStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(pipelineExecutionId: string, nodeId: number, token: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: nodeKey(pipelineExecutionId, nodeId),
        UpdateExpression: 'SET taskToken = :token',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':token': token },
      }),
    );
  }

  async get(pipelineExecutionId: string, nodeId: number): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: nodeKey(pipelineExecutionId, nodeId),
        ConsistentRead: true,
      }),
    );
    return Item?.taskToken ? String(Item.taskToken) : undefined;
  }
}

function nodeKey(pipelineExecutionId: string, nodeId: number) {
  return { pk: `PIPELINE#${pipelineExecutionId}`, sk: `NODE#${String(nodeId).padStart(6, '0')}` };
}
