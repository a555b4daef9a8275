import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';

export type Item = Record<string, unknown>;

/** The item without the table's key and index attributes: what the domain objects hold. */
export function withoutKeys(item: Item): Item {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ttl: _ttl, ...rest } = item;
  return rest;
}

/** Every page of a Query (DynamoDB returns at most 1 MB per call). */
export async function queryAll(db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Every item of one `gsi1` partition, or those whose `gsi1sk` starts with `prefix`. */
export function queryIndexPartition(
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  prefix?: string,
): Promise<Item[]> {
  return queryAll(db, {
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: prefix ? 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)' : 'gsi1pk = :pk',
    ExpressionAttributeValues: prefix ? { ':pk': partition, ':prefix': prefix } : { ':pk': partition },
  });
}

export interface UpdateParts {
  /** `SET #a = :a, ...` (and `REMOVE ...` for undefined values when `removeUndefined`). */
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Turns `{field: value}` changes into an update expression with placeholder names and values. */
export function setChanges(changes: Item, options: { removeUndefined?: boolean } = {}): UpdateParts {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) {
      if (options.removeUndefined) {
        names[`#${field}`] = field;
        removes.push(`#${field}`);
      }
      continue;
    }
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  const expression = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { expression, names, values };
}

/** `#state IN (:from0, :from1, ...)` for a guarded state transition. */
export function stateIn(states: readonly string[], attribute = 'state') {
  const values = Object.fromEntries(states.map((state, i) => [`:from${i}`, state]));
  return {
    condition: `#${attribute} IN (${states.map((_, i) => `:from${i}`).join(', ')})`,
    names: { [`#${attribute}`]: attribute },
    values,
  };
}

/**
 * Puts the items with BatchWriteItem, 25 per request, retrying what DynamoDB leaves unprocessed
 * under load with a short exponential backoff. Not atomic: items land independently.
 */
export async function batchPutAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending: Record<string, unknown>[] | undefined = items
      .slice(i, i + 25)
      .map((item) => ({ PutRequest: { Item: item } }));
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      if (attempt > 9) throw new Error(`Could not write ${pending.length} items to ${tableName}.`);
      const result = await db.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }),
      );
      pending = result.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined;
    }
  }
}
