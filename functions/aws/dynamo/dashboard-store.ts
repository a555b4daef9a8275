import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Dashboard, DashboardChanges, DashboardStore } from '../../core/dashboards';
import { NotFoundError } from '../../core/errors';
import { isConditionFailure } from './client';
import { setChanges, withoutKeys } from './expressions';

/**
 * Item layout:
 * - id counter: pk COUNTER  sk DASHBOARD_ID  (atomic ADD)
 * - dashboard:  pk DASHBOARD#<id>  sk DASHBOARD  gsi1pk ACCOUNT#<accountId>#DASHBOARDS  gsi1sk <zero-padded id>
 *   (widgets are held in the item: a dashboard is read and replaced whole)
 */
export class DynamoDashboardStore implements DashboardStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async nextDashboardId(): Promise<number> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: 'COUNTER', sk: 'DASHBOARD_ID' },
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.value);
  }

  async create(dashboard: Dashboard): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys(dashboard.dashboardId),
          gsi1pk: `ACCOUNT#${dashboard.accountId}#DASHBOARDS`,
          gsi1sk: String(dashboard.dashboardId).padStart(12, '0'),
          ...dashboard,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(dashboardId: number): Promise<Dashboard | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys(dashboardId), ConsistentRead: true }),
    );
    return Item ? toDashboard(Item) : undefined;
  }

  async update(dashboardId: number, changes: DashboardChanges, updatedAt: string): Promise<Dashboard> {
    const update = setChanges({ ...changes, updatedAt });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys(dashboardId),
          UpdateExpression: update.expression,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toDashboard(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`Dashboard ${dashboardId} not found.`);
      throw error;
    }
  }
}

function keys(dashboardId: number) {
  return { pk: `DASHBOARD#${dashboardId}`, sk: 'DASHBOARD' };
}

function toDashboard(item: Record<string, unknown>): Dashboard {
  return withoutKeys(item) as unknown as Dashboard;
}
