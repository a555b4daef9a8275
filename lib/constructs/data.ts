import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  type KeyAttribute,
  TABLE_DEFINITIONS,
  type TableDefinitionSpec,
} from '../../functions/aws/dynamo/table-definitions';

export interface DataProps {
  /** Defaults to the shared table definitions; tests may pass their own. */
  readonly tables?: readonly TableDefinitionSpec[];
}

/**
 * DynamoDB tables built from the same definitions the local host uses for dynalite. Tables are
 * named by CloudFormation (so two stacks can live in one account); functions get the physical
 * name through each definition's `envVar`.
 */
export class Data extends Construct {
  readonly tables: ReadonlyMap<string, TableV2>;
  /** `envVar -> table name` for every table, ready to merge into a function's environment. */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);
    const tables = new Map<string, TableV2>();
    const environment: Record<string, string> = {};
    for (const def of props.tables ?? TABLE_DEFINITIONS) {
      const table = new TableV2(this, def.logicalId, {
        partitionKey: attribute(def.partitionKey),
        sortKey: def.sortKey && attribute(def.sortKey),
        billing: Billing.onDemand(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        timeToLiveAttribute: def.timeToLiveAttribute,
        globalSecondaryIndexes: def.globalSecondaryIndexes.map((gsi) => ({
          indexName: gsi.indexName,
          partitionKey: attribute(gsi.partitionKey),
          sortKey: gsi.sortKey && attribute(gsi.sortKey),
        })),
        // Execution history and API keys live here: never let a stack delete them.
        removalPolicy: RemovalPolicy.RETAIN,
      });
      tables.set(def.logicalId, table);
      environment[def.envVar] = table.tableName;
    }
    this.tables = tables;
    this.environment = environment;
  }

  /** Item read/write on every table; TableV2 grants include the tables' indexes. */
  grantReadWriteData(grantee: IGrantable): void {
    for (const table of this.tables.values()) table.grantReadWriteData(grantee);
  }
}

function attribute(key: KeyAttribute) {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}
