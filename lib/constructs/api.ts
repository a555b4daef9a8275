import {
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { routes as ROUTES, type RouteDefinition } from '../../functions/routes';
import { Auth } from './auth';
import { assertRoutesDeployable } from './route-checks';
import { createApiFunction } from './service-function';

export const STAGE_NAME = 'prod';
export const THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;

export interface ApiProps {
  /** Table name variables (and anything else) every function needs. */
  readonly environment: Readonly<Record<string, string>>;
  /** Defaults to the shared route table; tests pass synthetic tables to measure the budget. */
  readonly routes?: readonly RouteDefinition[];
  /** API Gateway's authorizer result cache in seconds (see AuthProps.resultCacheSeconds). */
  readonly authorizerCacheSeconds?: number;
}

/**
 * REST API built from the route table: one Lambda function (proxy integration) per route and
 * API Gateway resources created by splitting the route paths, shared between routes with a common
 * prefix. Every route that is not public in the route table goes through the one Lambda REQUEST
 * authorizer (see Auth), which hands its verdict to the route's function.
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  /** Execution role shared by every API function (and the workflow node runner). */
  readonly role: Role;
  /** Functions keyed by `route.functionName`. */
  readonly functions: ReadonlyMap<string, NodejsFunction>;
  readonly auth: Auth;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const routes = props.routes ?? ROUTES;
    assertRoutesDeployable(routes);

    // One role for all functions: a role per function would cost 2 resources per route
    // against CloudFormation's 500-resource limit.
    this.role = new Role(this, 'FunctionRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Shared execution role of the API Lambda functions and the workflow node runner',
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });

    this.auth = new Auth(this, 'Auth', {
      role: this.role,
      environment: props.environment,
      resultCacheSeconds: props.authorizerCacheSeconds,
    });
    const environment = { ...props.environment, ...this.auth.environment };

    this.restApi = new RestApi(this, 'RestApi', {
      description: 'Onchain SQL analytics service',
      // Regional: clients are programs and agents, not browsers behind a CDN; Regional APIs are
      // also the ones that can raise the 29 s integration timeout and stream responses longest.
      endpointTypes: [EndpointType.REGIONAL],
      // Access logging is off, so the account-wide CloudWatch role is not needed.
      cloudWatchRole: false,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: THROTTLING.rateLimit,
        throttlingBurstLimit: THROTTLING.burstLimit,
      },
      defaultMethodOptions: { authorizationType: AuthorizationType.NONE, apiKeyRequired: false },
    });
    this.addJsonGatewayResponses();

    const functions = new Map<string, NodejsFunction>();
    for (const route of routes) {
      const fn = createApiFunction(this, { route, role: this.role, environment });
      // allowTestInvoke would add a second Lambda permission per route (console test calls).
      const integration = new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false });
      this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration, {
        operationName: route.functionName,
        ...(route.public
          ? { authorizationType: AuthorizationType.NONE }
          : { authorizationType: AuthorizationType.CUSTOM, authorizer: this.auth.authorizer }),
        apiKeyRequired: false,
      });
      functions.set(route.functionName, fn);
    }
    this.functions = functions;
  }

  /**
   * Adds variables to every API function: for values that exist only after the functions do (the
   * node runner, which runs under this API's role).
   */
  addEnvironment(environment: Readonly<Record<string, string>>): void {
    for (const fn of [...this.functions.values(), this.auth.function]) {
      for (const [key, value] of Object.entries(environment)) fn.addEnvironment(key, value);
    }
  }

  /** API Gateway's own errors (throttling, timeouts, unknown paths) use the REST error body too. */
  private addJsonGatewayResponses(): void {
    const responseHeaders = { 'Content-Type': "'application/json'" };
    const messageBody = { 'application/json': '{"error":$context.error.messageString}' };
    this.restApi.addGatewayResponse('Default4xx', {
      type: ResponseType.DEFAULT_4XX,
      responseHeaders,
      templates: messageBody,
    });
    this.restApi.addGatewayResponse('Default5xx', {
      type: ResponseType.DEFAULT_5XX,
      responseHeaders,
      templates: messageBody,
    });
    // REST APIs answer an unknown path or method with 403 "Missing Authentication Token"; auth is
    // done in the functions, so this can only mean "no such route".
    this.restApi.addGatewayResponse('MissingAuthenticationToken', {
      type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
      statusCode: '404',
      responseHeaders,
      templates: { 'application/json': '{"error":"Not found"}' },
    });
  }
}
