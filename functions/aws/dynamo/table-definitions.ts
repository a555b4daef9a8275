/**
 * DynamoDB table definitions, shared by the CDK stack (lib/) and the local host, which creates the
 * same tables in dynalite. One single-table design: generic `pk`/`sk` keys plus one GSI.
 *
 * dynalite has no transactions, TTL or streams: every write is a single-item (conditional) write.
 */
export interface KeyAttribute {
  name: string;
  type: 'S' | 'N';
}

export interface TableDefinitionSpec {
  /** Logical id in CDK and the env var that carries the physical name to the functions. */
  logicalId: string;
  envVar: string;
  /** Name used locally (dynalite); in AWS CloudFormation names the table. */
  localName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  globalSecondaryIndexes: { indexName: string; partitionKey: KeyAttribute; sortKey?: KeyAttribute }[];
  /** Attribute holding an epoch-seconds expiry (honoured by DynamoDB, ignored by dynalite). */
  timeToLiveAttribute?: string;
}

export const SERVICE_TABLE: TableDefinitionSpec = {
  logicalId: 'ServiceTable',
  envVar: 'SERVICE_TABLE_NAME',
  localName: 'service',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'gsi1',
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'ttl',
};

export const TABLE_DEFINITIONS: readonly TableDefinitionSpec[] = [SERVICE_TABLE];
