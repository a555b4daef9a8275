import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableStats } from '../../core/catalog';
import type { CatalogStatsStore } from '../../core/catalog-ports';
import { queryAll, withoutKeys } from './expressions';

/** Item layout: pk CATALOG_STATS, sk TABLE#<full_name lower-case>; one item per table. */
export class DynamoCatalogStatsStore implements CatalogStatsStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async putStats(stats: readonly TableStats[]): Promise<void> {
    for (let i = 0; i < stats.length; i += 25) {
      const batch = stats.slice(i, i + 25);
      let pending: Record<string, unknown>[] | undefined = batch.map((entry) => ({
        PutRequest: { Item: { pk: 'CATALOG_STATS', sk: `TABLE#${entry.fullName.toLowerCase()}`, ...entry } },
      }));
      // BatchWrite may return unprocessed items under load; retry them with a short backoff.
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const result = await this.db.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: pending as never } }),
        );
        pending = result.UnprocessedItems?.[this.tableName] as Record<string, unknown>[] | undefined;
        if (attempt > 8 && pending?.length) throw new Error('Could not write catalog statistics.');
      }
    }
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
