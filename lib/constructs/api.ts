import { Duration, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestValidator,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  corsMethodsOf,
  MCP_CORS_ALLOW_HEADERS,
  mcpPreflightOrigins,
  PREFLIGHT_MAX_AGE_SECONDS,
  PUBLIC_CORS_ALLOW_HEADERS,
} from '../../functions/http/cors';
import { routes as ROUTES, type RouteDefinition } from '../../functions/routes';
import { Auth } from './auth';
import { type FunctionRoles, functionGroupOf } from './function-roles';
import { assertRoutesDeployable } from './route-checks';
import { createApiFunction } from './service-function';

export const STAGE_NAME = 'prod';
export const THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;

/** What API Gateway's own 429 (the stage throttle above, shared by every caller) says. */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
export const THROTTLED_MESSAGE = `The API is receiving more requests than it accepts from all callers together (${THROTTLING.rateLimit} a second, bursts of ${THROTTLING.burstLimit}). Try again in ${THROTTLED_RETRY_AFTER_SECONDS} s.`;
/** Served base64-decoded as binary (the PNG rendering of a visualization). */
export const BINARY_MEDIA_TYPES = ['image/png'] as const;
export const COMPRESSION_THRESHOLD_KIB = 1;

export interface ApiProps {
  /** Table name variables (and anything else) every function needs. */
  readonly environment: Readonly<Record<string, string>>;
  /** The stack's roles per function group; each function runs under its group's. */
  readonly roles: FunctionRoles;
  /** Defaults to the shared route table; tests pass synthetic tables to measure the budget. */
  readonly routes?: readonly RouteDefinition[];
  /** API Gateway's authorizer result cache in seconds (see AuthProps.resultCacheSeconds). */
  readonly authorizerCacheSeconds?: number;
  /**
   * Browser origins (or hosts) allowed to call `/mcp/v1` (`MCP_ALLOWED_ORIGINS` of its functions,
   * and the origins its CORS preflight answers); none by default.
   */
  readonly mcpAllowedOrigins?: readonly string[];
  /**
   * The service's public base URL (`https://sql.example.com` with a custom domain); default the
   * API's own `https://<id>.execute-api.<region>.<suffix>/prod`. The functions get it as
   * `PUBLIC_BASE_URL`: the OAuth issuer, token audience and discovery documents use it whatever
   * `Host` a request names (functions/http/request-url.ts).
   */
  readonly publicBaseUrl?: string;
}

/**
 * REST API built from the route table: one Lambda function (proxy integration) per route and
 * API Gateway resources created by splitting the route paths, shared between routes with a common
 * prefix. Every route that is not public in the route table goes through the one Lambda REQUEST
 * authorizer (see Auth), which hands its verdict to the route's function.
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  /** Execution roles, one per function group (the authorizer's included). */
  readonly roles: FunctionRoles;
  /** One line per request (JSON), kept one month. */
  readonly accessLogs: LogGroup;
  /** Functions keyed by `route.functionName`. */
  readonly functions: ReadonlyMap<string, NodejsFunction>;
  readonly auth: Auth;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const routes = props.routes ?? ROUTES;
    assertRoutesDeployable(routes);
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.roles = props.roles;
    this.auth = new Auth(this, 'Auth', {
      role: this.roles.roleFor('authorizer'),
      environment: props.environment,
      resultCacheSeconds: props.authorizerCacheSeconds,
    });
    const environment: Record<string, string> = { ...props.environment, ...this.auth.environment };

    this.restApi = new RestApi(this, 'RestApi', {
      description: 'Onchain SQL analytics service',
      // Regional: clients are programs and agents, not browsers behind a CDN; Regional APIs are
      // also the ones that can raise the 29 s integration timeout and stream responses longest.
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // Compress answers of 1 KiB and more for clients that send Accept-Encoding: result pages and
      // CSV shrink several-fold, the API reference's renderer from 843 to 213 KiB (docs/aws.md).
      minCompressionSize: Size.kibibytes(COMPRESSION_THRESHOLD_KIB),
      // API Gateway writes access and execution logs through one role per account and region
      // (AWS::ApiGateway::Account, docs/aws.md). Retained: other APIs of the account rely on it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: THROTTLING.rateLimit,
        throttlingBurstLimit: THROTTLING.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        // Execution logs for errors only (no request or response bodies: they hold SQL and keys).
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        tracingEnabled: true,
      },
      defaultMethodOptions: { authorizationType: AuthorizationType.NONE, apiKeyRequired: false },
    });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "The account's API Gateway logging role uses AWS's AmazonAPIGatewayPushToCloudWatchLogs, as AWS documents",
    });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No WAF yet: the stage throttles, the authorizer refuses unknown callers; attach a web ACL for public exposure',
    });
    // Parameters and bodies are validated by the handlers' schemas (the same on both hosts, with
    // the service's error body); the gateway checks what a method declares (no models today).
    const validator = new RequestValidator(this, 'RequestValidator', {
      restApi: this.restApi,
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    this.addJsonGatewayResponses();

    // The stage URL spelled out from the API's id (restApi.url would reference the stage, whose
    // deployment depends on the methods, which depend on the functions: a cycle).
    const publicBaseUrl =
      props.publicBaseUrl ??
      `https://${this.restApi.restApiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/${STAGE_NAME}`;
    environment.PUBLIC_BASE_URL = publicBaseUrl;
    this.auth.function.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
    const mcpAllowedOrigins = (props.mcpAllowedOrigins ?? []).map((entry) => entry.trim()).filter(Boolean);
    const functions = new Map<string, NodejsFunction>();
    const functionOfRoute = new Map<string, NodejsFunction>();
    for (const route of routes) {
      // A deprecated path runs its successor's function: the same handler, no Lambda of its own.
      const fn =
        (route.supersededBy && functionOfRoute.get(route.supersededBy)) ||
        createApiFunction(this, {
          route,
          role: this.roles.roleFor(functionGroupOf(route)),
          environment:
            route.cors === 'mcp' && mcpAllowedOrigins.length
              ? { ...environment, MCP_ALLOWED_ORIGINS: mcpAllowedOrigins.join(',') }
              : environment,
        });
      functionOfRoute.set(`${route.method} ${route.path}`, fn);
      // allowTestInvoke would add a second Lambda permission per route (console test calls).
      const integration = new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false });
      const method = this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration, {
        operationName: route.functionName,
        requestValidator: validator,
        ...(route.public
          ? { authorizationType: AuthorizationType.NONE }
          : { authorizationType: AuthorizationType.CUSTOM, authorizer: this.auth.authorizer }),
        apiKeyRequired: false,
      });
      functions.set(route.functionName, fn);
      acknowledgeAuthorization(method, route);
    }
    this.functions = functions;
    this.addCorsPreflights(routes, mcpAllowedOrigins);
  }

  /**
   * One MOCK `OPTIONS` method per path the route table marks `cors` (functions/http/cors.ts, the
   * values the local host answers with): a Lambda proxy integration cannot answer a preflight by
   * itself, and its function adds `Access-Control-Allow-Origin` to the real answers (docs/aws.md,
   * "CORS"). `public` paths allow any origin; `/mcp/v1` the configured origins, echoed by the
   * template CDK writes for several, or a 403 when none is configured.
   */
  private addCorsPreflights(routes: readonly RouteDefinition[], mcpAllowedOrigins: readonly string[]): void {
    const paths = new Map<string, 'public' | 'mcp'>();
    for (const route of routes) if (route.cors) paths.set(route.path, route.cors);
    for (const [path, cors] of paths) {
      const resource = this.restApi.root.resourceForPath(path);
      const allowMethods = corsMethodsOf(path, routes);
      const maxAge = Duration.seconds(PREFLIGHT_MAX_AGE_SECONDS);
      let method: Construct;
      if (cors === 'public') {
        method = resource.addCorsPreflight({
          allowOrigins: ['*'],
          allowMethods,
          allowHeaders: [...PUBLIC_CORS_ALLOW_HEADERS],
          maxAge,
        });
      } else if (mcpAllowedOrigins.length) {
        method = resource.addCorsPreflight({
          allowOrigins: mcpPreflightOrigins(mcpAllowedOrigins.map((entry) => entry.toLowerCase())),
          allowMethods,
          allowHeaders: [...MCP_CORS_ALLOW_HEADERS],
          maxAge,
        });
      } else {
        method = refusedPreflight(resource, path);
      }
      acknowledgeAuthorization(method, { public: true });
    }
  }

  /** API Gateway's own errors (throttling, timeouts, unknown paths) use the REST error body too. */
  private addJsonGatewayResponses(): void {
    // Readable by browser-based clients too (the CORS routes' own answers carry the header; these
    // bodies hold only API Gateway's message).
    const responseHeaders = { 'Content-Type': "'application/json'", 'Access-Control-Allow-Origin': "'*'" };
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
    // The stage's throttle is a token bucket refilled every second: a static Retry-After of one
    // second is right for it (a gateway response can only set static headers; docs/aws.md).
    this.restApi.addGatewayResponse('Throttled', {
      type: ResponseType.THROTTLED,
      responseHeaders: { ...responseHeaders, 'Retry-After': `'${THROTTLED_RETRY_AFTER_SECONDS}'` },
      templates: {
        'application/json': JSON.stringify({ error: THROTTLED_MESSAGE }),
      },
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

/** `OPTIONS` on a path no browser origin may call: 403 saying how to allow one, as the local host answers. */
function refusedPreflight(resource: IResource, path: string): Construct {
  const body = JSON.stringify({
    error: `Forbidden: no browser origin may call ${path} (deploy with -c mcpAllowedOrigins=https://app.example to allow one).`,
  });
  return resource.addMethod(
    'OPTIONS',
    new MockIntegration({
      passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
      requestTemplates: { 'application/json': '{ "statusCode": 403 }' },
      integrationResponses: [
        {
          statusCode: '403',
          responseParameters: { 'method.response.header.Content-Type': "'application/json'" },
          responseTemplates: { 'application/json': body },
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      methodResponses: [
        { statusCode: '403', responseParameters: { 'method.response.header.Content-Type': true } },
      ],
    },
  );
}

/** Why the methods do not use what cdk-nag asks for: a Cognito authorizer, or any authorizer. */
function acknowledgeAuthorization(method: Construct, route: Pick<RouteDefinition, 'public'>): void {
  Validations.of(method).acknowledge({
    id: 'AwsSolutions-COG4',
    reason: 'Callers hold API keys or this service’s own OAuth tokens, checked by the Lambda authorizer',
  });
  if (route.public) {
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Public by design: OAuth endpoints and metadata, the home page, the share-token dashboard page, CORS preflights (MOCK)',
    });
  }
}
