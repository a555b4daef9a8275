import { NestedStack, Stack } from 'aws-cdk-lib';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { glueDatabaseName, glueTableInput } from '../../functions/aws/catalog/glue-tables';
import type { TableDefinition } from '../../functions/core/catalog';
import { BASE_TABLES } from '../../functions/datasets/base-tables';

export interface DataLakeCatalogProps {
  readonly dataBucket: IBucket;
  /** Defaults to the shared table registry. */
  readonly tables?: readonly TableDefinition[];
  /** The database of materialized-view versions (its tables are created at run time). */
  readonly viewsDatabaseName: string;
}

/**
 * The Glue databases and tables of the onchain data lake, generated from the table registry. A
 * nested stack: ~40 catalog resources count as one in the service stack's 500-resource budget.
 */
export class DataLakeCatalog extends NestedStack {
  readonly databaseNames: readonly string[];
  /** `<database>/<table>` of every table, as Glue's table ARNs end. */
  readonly tableNames: readonly string[];

  constructor(scope: Construct, id: string, props: DataLakeCatalogProps) {
    super(scope, id, {
      description: 'Glue catalog of the onchain data lake (generated from the table registry)',
    });
    const tables = props.tables ?? BASE_TABLES;
    const catalogId = Stack.of(this).account;
    const databases = new Map<string, CfnDatabase>();
    const tableNames: string[] = [];
    for (const table of tables) {
      const name = glueDatabaseName(table);
      let database = databases.get(name);
      if (!database) {
        database = new CfnDatabase(this, `Database-${name}`, {
          catalogId,
          databaseInput: { name, description: `Onchain tables of schema ${table.schema}` },
        });
        databases.set(name, database);
      }
      const tableInput = glueTableInput(table, props.dataBucket.bucketName);
      const cfnTable = new CfnTable(this, `Table-${name}-${table.table}`, {
        catalogId,
        databaseName: name,
        tableInput,
      });
      cfnTable.addDependency(database);
      tableNames.push(`${name}/${tableInput.name}`);
    }
    new CfnDatabase(this, 'ViewsDatabase', {
      catalogId,
      databaseInput: {
        name: props.viewsDatabaseName,
        description: 'Materialized view versions, one table per version (created by the runner)',
      },
    });
    this.databaseNames = [...databases.keys()];
    this.tableNames = tableNames;
  }
}
