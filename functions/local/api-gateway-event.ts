import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

const FORWARDED_PROTO = 'x-forwarded-proto';

/**
 * Turns a Node HTTP request into the REST API (v1) proxy event that API Gateway sends a Lambda,
 * so the local host calls handlers exactly as AWS does.
 */
export function toApiGatewayEvent(input: {
  request: IncomingMessage;
  url: URL;
  body: Buffer;
  resource: string;
  pathParameters: Record<string, string> | null;
}): APIGatewayProxyEvent {
  const { request, url, body } = input;
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    const value = request.rawHeaders[i + 1]!;
    headers[name] = value; // API Gateway keeps the last value in `headers`
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  // API Gateway tells a function the scheme it was called by (X-Forwarded-Proto: https); this server
  // speaks plain HTTP, so links it makes (next_uri) must say http whatever the Host. A proxy in
  // front of it (one terminating TLS) has set the header already and is believed.
  if (!Object.keys(headers).some((name) => name.toLowerCase() === FORWARDED_PROTO)) {
    headers['X-Forwarded-Proto'] = 'http';
    multiValueHeaders['X-Forwarded-Proto'] = ['http'];
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiQuery[name] = [...(multiQuery[name] ?? []), value];
  }
  const hasQuery = Object.keys(query).length > 0;
  const method = request.method ?? 'GET';
  const requestId = randomUUID();
  const isText = body.length === 0 || isTextual(request.headers['content-type']);
  return {
    resource: input.resource,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: input.pathParameters,
    stageVariables: null,
    body: body.length === 0 ? null : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: method,
      path: url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: input.resource,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
    },
  };
}

function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return true;
  return /^(text\/|application\/(json|x-www-form-urlencoded|xml|javascript|[\w.+-]*\+json))/i.test(
    contentType,
  );
}

/**
 * A Lambda context for one local invocation, with the route's timeout as its deadline. Its
 * no-op methods live on the class, not in closures made per request (the local host builds one a
 * request, and under tsx every closure is also named with a property definition).
 */
class LocalLambdaContext implements Context {
  readonly callbackWaitsForEmptyEventLoop = false;
  readonly functionVersion = '$LATEST';
  readonly memoryLimitInMB = '512';
  readonly logStreamName = 'local';
  /** A function of its own, as Lambda's is: middy calls it detached from the context. */
  readonly getRemainingTimeInMillis: () => number;

  constructor(
    readonly functionName: string,
    timeoutSeconds: number,
    readonly awsRequestId: string,
  ) {
    const deadline = Date.now() + timeoutSeconds * 1000;
    this.getRemainingTimeInMillis = () => Math.max(0, deadline - Date.now());
  }

  get invokedFunctionArn(): string {
    return `arn:aws:lambda:local:000000000000:function:${this.functionName}`;
  }

  get logGroupName(): string {
    return `/aws/lambda/${this.functionName}`;
  }

  done(): void {}
  fail(): void {}
  succeed(): void {}
}

export function localLambdaContext(functionName: string, timeoutSeconds: number, requestId: string): Context {
  return new LocalLambdaContext(functionName, timeoutSeconds, requestId);
}

export type LambdaHttpHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;
