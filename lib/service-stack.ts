import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { TableDefinitionSpec } from '../functions/aws/dynamo/table-definitions';
import type { RouteDefinition } from '../functions/routes';
import { Api } from './constructs/api';
import { CustomDomain } from './constructs/custom-domain';
import { Data } from './constructs/data';
import { Executions } from './constructs/executions';
import { type FunctionGroup, FunctionRoles } from './constructs/function-roles';
import { Operations } from './constructs/operations';
import { QueryEngine } from './constructs/query-engine';

export interface ServiceStackProps extends StackProps {
  /** Defaults to `functions/routes.ts`; tests pass synthetic tables. */
  readonly routes?: readonly RouteDefinition[];
  /** Defaults to `functions/aws/dynamo/table-definitions.ts`. */
  readonly tables?: readonly TableDefinitionSpec[];
  /**
   * Serve the API at the root of a custom domain (needed for OAuth discovery by MCP clients; see
   * lib/constructs/custom-domain.ts). `cdk deploy -c domainName=... -c certificateArn=...`.
   */
  readonly domain?: { readonly domainName: string; readonly certificateArn: string };
  /** API Gateway authorizer result cache in seconds (default 0; see lib/constructs/auth.ts). */
  readonly authorizerCacheSeconds?: number;
  /**
   * Browser origins (or hosts) that may call `/mcp/v1` (`cdk deploy -c mcpAllowedOrigins=https://a,https://b`):
   * its Origin check lets them through, its answers carry CORS headers for them, and its OPTIONS
   * preflight allows them. None by default.
   */
  readonly mcpAllowedOrigins?: readonly string[];
  /** An email address the alarm topic notifies (`cdk deploy -c alarmEmail=...`). */
  readonly alarmEmail?: string;
}

/**
 * The whole service in one stack: data (DynamoDB), the REST API and what the query-execution
 * workflows need (the node runner and the role of the state machines the API generates).
 */
export class ServiceStack extends Stack {
  readonly data: Data;
  readonly api: Api;
  readonly executions: Executions;
  readonly queryEngine: QueryEngine;
  readonly roles: FunctionRoles;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    this.data = new Data(this, 'Data', { tables: props.tables });
    this.queryEngine = new QueryEngine(this, 'QueryEngine');
    this.roles = new FunctionRoles(this, 'FunctionRoles');
    const environment = { ...this.data.environment, ...this.queryEngine.environment };
    this.executions = new Executions(this, 'Executions', {
      role: this.roles.roleFor('runner'),
      environment,
    });
    this.api = new Api(this, 'Api', {
      environment: { ...environment, ...this.executions.environment },
      roles: this.roles,
      routes: props.routes,
      authorizerCacheSeconds: props.authorizerCacheSeconds,
      mcpAllowedOrigins: props.mcpAllowedOrigins,
      publicBaseUrl: props.domain ? `https://${props.domain.domainName}` : undefined,
    });
    if (props.domain) {
      const domain = new CustomDomain(this, 'CustomDomain', { restApi: this.api.restApi, ...props.domain });
      new CfnOutput(this, 'BaseUrl', {
        description: 'Base URL: REST under /v1, MCP at /mcp/v1, OAuth discovery at /.well-known/...',
        value: domain.baseUrl,
      });
    }
    // The runner signs webhook notifications with the OAuth signing keys (functions/pipelines/webhooks.ts).
    this.executions.runner.addEnvironment('SIGNING_KEYS_SECRET_ID', this.api.auth.signingKeys.secretArn);
    for (const [group, role] of this.roles.all) this.grantGroup(group, role);
    this.operations = new Operations(this, 'Operations', {
      restApi: this.api.restApi,
      stateMachinePrefix: this.executions.stateMachinePrefix,
      scheduleDeadLetters: this.executions.scheduleDeadLetters,
      alarmEmail: props.alarmEmail,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'SNS topic every alarm notifies: subscribe where the team gets paged',
      value: this.operations.alarmTopic.topicArn,
    });

    new CfnOutput(this, 'StateMachinePrefix', {
      description:
        'Generated workflows are named <this>-<hash> (npm run cleanup-workflows -- --prefix <this>)',
      value: this.executions.stateMachinePrefix,
    });
    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the REST API (route paths start with /v1)',
      value: this.api.restApi.url,
    });
    new CfnOutput(this, 'DataBucketName', {
      description: 'Bucket of the onchain data lake (npm run load-data -- --aws --bucket <this value>)',
      value: this.queryEngine.dataBucket.bucketName,
    });
    for (const [logicalId, table] of this.data.tables) {
      new CfnOutput(this, `${logicalId}Name`, {
        description: `DynamoDB table ${logicalId} (npm run admin -- --aws --table-name <this value> ...)`,
        value: table.tableName,
      });
    }
  }

  /** What each function group may call (docs/aws.md, "Function groups and their permissions"). */
  private grantGroup(group: FunctionGroup, role: Role): void {
    const { data, queryEngine, executions } = this;
    const signingKeys = this.api.auth.signingKeys;
    switch (group) {
      case 'authorizer':
        data.grantCredentialLookups(role);
        signingKeys.grantRead(role);
        return;
      case 'oauth':
        data.grantReadWriteItems(role);
        data.denyCredentialItems(role, { allowAccountIndex: true });
        signingKeys.grantRead(role);
        signingKeys.grantWrite(role);
        return;
      case 'publicPages':
      case 'reader':
        data.grantReadItems(role);
        data.denyCredentialItems(role);
        queryEngine.grantReadResults(role);
        // Authenticated reads count against the account's read budget (the public pages do not).
        if (group === 'reader') data.grantRequestCounting(role);
        return;
      case 'writer':
        data.grantReadWriteItems(role);
        data.denyCredentialItems(role);
        queryEngine.grantReadResults(role);
        queryEngine.grantDeleteResults(role);
        queryEngine.grantStopQueries(role);
        // Deleting a view drops its versions; uploads write and drop their generations' tables.
        queryEngine.grantManageViewVersions(role);
        executions.grantStartExecutions(role);
        // Cancels answer parked Tasks: a pipeline's waiting nodes, a queued execution's slot wait.
        executions.grantAnswerTasks(role);
        executions.grantManageSchedules(role);
        return;
      case 'runner':
        data.grantReadWriteItems(role);
        data.denyCredentialItems(role);
        // Webhook signatures: the newest key signs, and whoever signs first after it aged rotates it.
        signingKeys.grantRead(role);
        signingKeys.grantWrite(role);
        queryEngine.grantRunQueries(role);
        queryEngine.grantManageViewVersions(role);
        executions.grantStartExecutions(role);
        executions.grantAnswerTasks(role);
        executions.grantManageSchedules(role);
        return;
    }
  }
}
