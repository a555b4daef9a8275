import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
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
  private readonly definitions: readonly TableDefinitionSpec[];

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);
    const tables = new Map<string, TableV2>();
    const environment: Record<string, string> = {};
    this.definitions = props.tables ?? TABLE_DEFINITIONS;
    for (const def of this.definitions) {
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

  /** Reading items: the calls the stores make (GetItem, BatchGetItem, Query), on tables and indexes. */
  grantReadItems(grantee: IGrantable): void {
    this.allow(grantee, READ_ACTIONS);
  }

  /** Reading and writing items (the stores never Scan, and use no transactions). */
  grantReadWriteItems(grantee: IGrantable): void {
    this.allow(grantee, [...READ_ACTIONS, ...WRITE_ACTIONS]);
  }

  /**
   * Keeps API-key hashes (and, through the index, an account's keys, logins and token families)
   * away from every function but the authorizer and the OAuth endpoints: an explicit deny on items
   * whose partition key is `APIKEY#…`, and on index queries by `ACCOUNT#<id>` (the key lists), in
   * IAM's `dynamodb:LeadingKeys` (docs/aws.md, "Function groups and their permissions").
   */
  denyCredentialItems(grantee: IGrantable, options: { allowAccountIndex?: boolean } = {}): void {
    const actions = [...READ_ACTIONS, ...WRITE_ACTIONS];
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        actions,
        resources: this.tableArns(),
        conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [API_KEY_ITEMS] } },
      }),
    );
    if (options.allowAccountIndex) return;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        actions: ['dynamodb:Query'],
        resources: this.indexArns(),
        conditions: {
          'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] },
          // `ACCOUNT#<id>#DASHBOARDS` and `#QUERIES` are an account's own lists, not credentials.
          'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*#*'] },
        },
      }),
    );
  }

  /**
   * Counting requests against the rate limits (functions/aws/dynamo/request-counter.ts): UpdateItem
   * of the `RATE#<account id>` items only, for groups that otherwise only read.
   */
  grantRequestCounting(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: this.tableArns(),
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [REQUEST_COUNT_ITEMS] } },
      }),
    );
  }

  /**
   * The authorizer's reads: an API key by id, the account it belongs to, an OAuth token family,
   * by GetItem only (`dynamodb:LeadingKeys` limits the items).
   */
  grantCredentialLookups(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem'],
        resources: [...this.tables.values()].map((table) => table.tableArn),
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [API_KEY_ITEMS, 'ACCOUNT#*', 'OAUTHFAMILY#*'],
          },
        },
      }),
    );
  }

  private allow(grantee: IGrantable, actions: readonly string[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...actions], resources: [...this.tableArns(), ...this.indexArns()] }),
    );
  }

  private tableArns(): string[] {
    return [...this.tables.values()].map((table) => table.tableArn);
  }

  /** Each index by name (no `index/*`). */
  private indexArns(): string[] {
    return this.definitions.flatMap((def) => {
      const table = this.tables.get(def.logicalId)!;
      return def.globalSecondaryIndexes.map((gsi) => `${table.tableArn}/index/${gsi.indexName}`);
    });
  }
}

/** Items counting an account's requests per minute (functions/aws/dynamo/request-counter.ts). */
const REQUEST_COUNT_ITEMS = 'RATE#*';
/** Items holding an API key's hash (functions/aws/dynamo/account-store.ts). */
const API_KEY_ITEMS = 'APIKEY#*';
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

function attribute(key: KeyAttribute) {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}
