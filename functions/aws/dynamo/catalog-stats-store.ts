import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableStats } from '../../core/catalog';
import type { CatalogStatsStore } from '../../core/catalog-ports';
import { batchPutAll, queryAll, withoutKeys } from './expressions';

/** Item layout: pk CATALOG_STATS, sk TABLE#<full_name lower-case>; one item per table. */
export class DynamoCatalogStatsStore implements CatalogStatsStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async putStats(stats: readonly TableStats[]): Promise<void> {
    await batchPutAll(
      this.db,
      this.tableName,
      stats.map((entry) => ({ pk: 'CATALOG_STATS', sk: `TABLE#${entry.fullName.toLowerCase()}`, ...entry })),
    );
  }

  async listStats(): Promise<TableStats[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'CATALOG_STATS' },
    });
    return items.map((item) => withoutKeys(item) as unknown as TableStats);
  }
}
