import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { TableDefinitionSpec } from '../functions/aws/dynamo/table-definitions';
import type { RouteDefinition } from '../functions/routes';
import { Api } from './constructs/api';
import { Data } from './constructs/data';

export interface ServiceStackProps extends StackProps {
  /** Defaults to `functions/routes.ts`; tests pass synthetic tables. */
  readonly routes?: readonly RouteDefinition[];
  /** Defaults to `functions/aws/dynamo/table-definitions.ts`. */
  readonly tables?: readonly TableDefinitionSpec[];
}

/** The whole service in one stack: data (DynamoDB) and the REST API. */
export class ServiceStack extends Stack {
  readonly data: Data;
  readonly api: Api;

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    this.data = new Data(this, 'Data', { tables: props.tables });
    this.api = new Api(this, 'Api', { environment: this.data.environment, routes: props.routes });
    this.data.grantReadWriteData(this.api.role);

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the REST API (route paths start with /v1)',
      value: this.api.restApi.url,
    });
  }
}
