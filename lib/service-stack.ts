import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { TableDefinitionSpec } from '../functions/aws/dynamo/table-definitions';
import type { RouteDefinition } from '../functions/routes';
import { Api } from './constructs/api';
import { Data } from './constructs/data';
import { Executions } from './constructs/executions';

export interface ServiceStackProps extends StackProps {
  /** Defaults to `functions/routes.ts`; tests pass synthetic tables. */
  readonly routes?: readonly RouteDefinition[];
  /** Defaults to `functions/aws/dynamo/table-definitions.ts`. */
  readonly tables?: readonly TableDefinitionSpec[];
}

/**
 * The whole service in one stack: data (DynamoDB), the REST API and what the query-execution
 * workflows need (the node runner and the role of the state machines the API generates).
 */
export class ServiceStack extends Stack {
  readonly data: Data;
  readonly api: Api;
  readonly executions: Executions;

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    this.data = new Data(this, 'Data', { tables: props.tables });
    this.api = new Api(this, 'Api', { environment: this.data.environment, routes: props.routes });
    this.data.grantReadWriteData(this.api.role);

    // The runner runs under the API's role (see ExecutionsProps.role), so it shares its grants.
    this.executions = new Executions(this, 'Executions', {
      role: this.api.role,
      environment: this.data.environment,
    });
    this.executions.grantStartExecutions(this.api.role);
    this.api.addEnvironment(this.executions.environment);

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the REST API (route paths start with /v1)',
      value: this.api.restApi.url,
    });
    for (const [logicalId, table] of this.data.tables) {
      new CfnOutput(this, `${logicalId}Name`, {
        description: `DynamoDB table ${logicalId} (npm run admin -- --aws --table-name <this value> ...)`,
        value: table.tableName,
      });
    }
  }
}
