import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../core/errors';
import type { Visualization, VisualizationChanges, VisualizationStore } from '../../core/visualizations';
import { isConditionFailure } from './client';
import { queryAll, setChanges, withoutKeys } from './expressions';

/**
 * Item layout:
 * - id counter:     pk COUNTER  sk VISUALIZATION_ID  (atomic ADD)
 * - visualization:  pk VISUALIZATION#<id>  sk VISUALIZATION
 *                   gsi1pk QUERY#<queryId>#VISUALIZATIONS  gsi1sk <zero-padded id>
 */
export class DynamoVisualizationStore implements VisualizationStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async nextVisualizationId(): Promise<number> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: 'COUNTER', sk: 'VISUALIZATION_ID' },
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.value);
  }

  async create(visualization: Visualization): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys(visualization.visualizationId),
          gsi1pk: `QUERY#${visualization.queryId}#VISUALIZATIONS`,
          gsi1sk: String(visualization.visualizationId).padStart(12, '0'),
          ...visualization,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(visualizationId: number): Promise<Visualization | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys(visualizationId), ConsistentRead: true }),
    );
    return Item ? toVisualization(Item) : undefined;
  }

  async update(
    visualizationId: number,
    changes: VisualizationChanges,
    updatedAt: string,
  ): Promise<Visualization> {
    const update = setChanges({ ...changes, updatedAt });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(visualizationId),
          UpdateExpression: update.expression,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toVisualization(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`Visualization ${visualizationId} not found.`);
      throw error;
    }
  }

  async delete(visualizationId: number): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys(visualizationId) }));
  }

  async listByQuery(queryId: number): Promise<Visualization[]> {
    return (
      await queryAll(this.db, {
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `QUERY#${queryId}#VISUALIZATIONS` },
      })
    ).map(toVisualization);
  }
}

function keys(visualizationId: number) {
  return { pk: `VISUALIZATION#${visualizationId}`, sk: 'VISUALIZATION' };
}

function toVisualization(item: Record<string, unknown>): Visualization {
  return withoutKeys(item) as unknown as Visualization;
}
