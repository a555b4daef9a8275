import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ZodType, z } from 'zod';
import { enforceRateLimit, RateLimitedError, rateLimitHeaders } from '../accounts/rate-limits';
import { requestPrincipal } from '../auth/authorizer';
import { API_KEY_QUERY_PARAMETER } from '../auth/credentials';
import { challengeHeaders } from '../auth/refusal';
import type { Account } from '../core/accounts';
import { BadRequestError, PayloadTooLargeError } from '../core/errors';
import type { RateClass } from '../core/rate-limits';
import { formatZodError, noQueryOptions } from '../core/validation';
import { getServices, type Services } from '../services';
import { corsOf, PUBLIC_CORS_HEADERS } from './cors';
import { mapError } from './error-mapping';
import { idempotently } from './idempotency';
import { addRequestLogKeys, logger, requestLogging } from './logger';
import { HttpResponse, jsonResult } from './responses';

/** JSON bodies above this are refused with 413 (API Gateway itself stops at 10 MB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface RouteRequest<Body, Query, Path> {
  body: Body;
  query: Query;
  path: Path;
  /** The authenticated caller (public routes, declared `auth: 'none'`, get undefined). */
  account: Account;
  services: Services;
  requestId: string;
  event: APIGatewayProxyEvent;
}

export interface RouteSpec<
  B extends ZodType,
  Q extends ZodType,
  P extends ZodType,
  R extends ZodType | undefined = ZodType | undefined,
> {
  /** `none` for the public routes of the route table; every other route needs credentials. */
  auth?: 'account' | 'none';
  /**
   * Which of the account's request budgets the route counts against (core/rate-limits.ts): by
   * default `read` for GET, `write` for the rest. A POST that only reads (a search, a cancel as
   * Dune counts it) says `read`.
   */
  rateClass?: RateClass;
  body?: B;
  query?: Q;
  path?: P;
  maxBodyBytes?: number;
  /**
   * Starts or creates something: an `Idempotency-Key` header makes a resent request answer as the
   * first did instead of running again (functions/http/idempotency.ts).
   */
  idempotent?: boolean;
  /** The rest documents the route in the OpenAPI document (functions/openapi). */
  docs?: RouteDocs<R>;
}

/** What the OpenAPI document says about a route beyond its input schemas. */
export interface RouteDocs<R extends ZodType | undefined = ZodType | undefined> {
  /** One line; the default is made from the handler name. */
  summary?: string;
  /** The JSON answer (its output side is documented, and the route must return it); the default is any JSON object. */
  response?: R;
  /** A non-JSON answer's media type (CSV, SVG, PNG). */
  produces?: string;
  /** A raw (non-JSON) request body's media types, which the route reads itself (no `body` schema). */
  consumes?: readonly string[];
  /**
   * Failures beyond those every route of its kind can return (400 on bad input, 401/403 for
   * credentials, 404 for a path id, 413 for a body, 429, 500): 402 past the credit limit, 409 on a
   * state conflict, 501 where the host lacks the feature.
   */
  errors?: readonly ErrorStatus[];
}

export type ErrorStatus = 400 | 402 | 403 | 404 | 409 | 501;

type Infer<T> = T extends ZodType ? z.output<T> : undefined;
/** What a route returns: its documented answer, or any JSON when it documents none, or an HttpResponse. */
type Answer<R> = R extends ZodType ? z.output<R> | HttpResponse : unknown;

type Internal = {
  account?: Account;
  services?: Services;
  requestId?: string;
  /** The request's rate-limit headers, on every answer of the route, errors too. */
  rateHeaders?: Record<string, string>;
};

/**
 * Builds a Lambda handler for one API Gateway route: header normalization, request id,
 * structured logs, API-key auth, JSON body parsing, zod validation of body/query/path, and one
 * error mapping to `{"error": "..."}`. The route function holds no HTTP plumbing, only the call
 * to its use case.
 */
export function routeHandler<
  B extends ZodType | undefined = undefined,
  Q extends ZodType | undefined = undefined,
  P extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(
  spec: RouteSpec<NonNullable<B> & ZodType, NonNullable<Q> & ZodType, NonNullable<P> & ZodType, R> & {
    body?: B;
    query?: Q;
    path?: P;
  },
  run: (request: RouteRequest<Infer<B>, Infer<Q>, Infer<P>>) => Promise<Answer<R>>,
) {
  const base = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const internal = (context as Context & { internal?: Internal }).internal ?? {};
    const services = internal.services ?? (await getServices());
    const requestId = internal.requestId ?? requestIdOf(event, context);
    const json = spec.body ? parseJsonBody(event, spec.maxBodyBytes) : undefined;
    const body = spec.body ? parse(spec.body, json, 'body') : undefined;
    // An API route that takes no options still reads its query string: an option is a likely typo.
    const querySchema = spec.query ?? (spec.auth === 'none' ? undefined : noQueryOptions);
    const query = querySchema ? parse(querySchema, queryParameters(event), 'query') : undefined;
    const path = spec.path ? parse(spec.path, event.pathParameters ?? {}, 'path') : undefined;
    const respond = async (): Promise<APIGatewayProxyResult> => {
      const result = await run({
        body: body as Infer<B>,
        query: query as Infer<Q>,
        path: path as Infer<P>,
        account: internal.account as Account,
        services,
        requestId,
        event,
      });
      if (result instanceof HttpResponse) {
        return {
          statusCode: result.statusCode,
          headers: { 'x-request-id': requestId, ...result.headers },
          body: result.body,
        };
      }
      return jsonResult(200, result, { 'x-request-id': requestId });
    };
    if (!spec.idempotent || !internal.account) return respond();
    // A route that reads its body itself (an upload's CSV) is fingerprinted by the body's text.
    const requestBody = spec.body ? json : (event.body ?? undefined);
    const answer = await idempotently(services.idempotency, internal.account, event, requestBody, respond);
    return { ...answer, headers: { 'x-request-id': requestId, ...answer.headers } };
  };

  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(requestLogging)
    .use(httpHeaderNormalizer())
    .use(requestContextMiddleware(spec.auth ?? 'account', spec.rateClass))
    .handler(base);
  // The OpenAPI document is generated from the very schemas the handler validates with.
  return Object.assign(handler, { routeSpec: spec as unknown as RouteSpec<ZodType, ZodType, ZodType> });
}

/** A handler built by routeHandler, with the spec it validates requests by. */
export type DocumentedHandler = { routeSpec: RouteSpec<ZodType, ZodType, ZodType> };

function requestContextMiddleware(
  auth: 'account' | 'none',
  rateClass: RateClass | undefined,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const internalOf = (context: Context) => (context as Context & { internal?: Internal }).internal;
  return {
    before: async (request) => {
      const requestId = requestIdOf(request.event, request.context);
      const internal: Internal = { requestId };
      (request.context as Context & { internal?: Internal }).internal = internal;
      addRequestLogKeys({ requestId, route: `${request.event.httpMethod} ${request.event.resource}` });
      internal.services = await getServices();
      if (auth === 'account') {
        const principal = await requestPrincipal(request.event);
        internal.account = principal.account;
        addRequestLogKeys({ accountId: principal.account.accountId, via: principal.via });
        const counted = rateClass ?? (request.event.httpMethod === 'GET' ? 'read' : 'write');
        try {
          internal.rateHeaders = rateLimitHeaders(
            await enforceRateLimit(internal.services, principal.account.accountId, counted),
          );
        } catch (error) {
          if (error instanceof RateLimitedError) internal.rateHeaders = rateLimitHeaders(error.verdict);
          throw error;
        }
      }
    },
    after: async (request) => {
      const rateHeaders = internalOf(request.context)?.rateHeaders;
      const extra = { ...rateHeaders, ...corsHeadersOf(request.event) };
      if (Object.keys(extra).length && request.response) {
        request.response = { ...request.response, headers: { ...extra, ...request.response.headers } };
      }
    },
    onError: async (request) => {
      const internal = internalOf(request.context);
      const requestId = internal?.requestId ?? requestIdOf(request.event, request.context);
      const response = errorResponse(request.error, request.event, requestId);
      request.response = {
        ...response,
        headers: { ...internal?.rateHeaders, ...corsHeadersOf(request.event), ...response.headers },
      };
    },
  };
}

/** A `public` CORS route's header (functions/http/cors.ts), on its answers and its errors alike. */
function corsHeadersOf(event: APIGatewayProxyEvent): Record<string, string> {
  return corsOf(event.resource) === 'public' ? PUBLIC_CORS_HEADERS : {};
}

/**
 * The answer to a failed request: `{"error": "..."}` with the mapped status, and on 401/403 the
 * `WWW-Authenticate` challenge that MCP clients discover OAuth from. The MCP endpoint answers
 * refused credentials with this too, so every route refuses in one shape.
 */
export function errorResponse(
  error: unknown,
  event: APIGatewayProxyEvent,
  requestId: string,
): APIGatewayProxyResult {
  const mapped = mapError(error, requestId);
  if (mapped.expected)
    logger.info('request refused', { statusCode: mapped.statusCode, error: mapped.message });
  else logger.error('request failed', { error: error as Error });
  const headers = {
    'x-request-id': requestId,
    ...challengeHeaders(error, event),
    ...(error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : {}),
  };
  return jsonResult(mapped.statusCode, { error: mapped.message }, headers);
}

/** API Gateway's request id (the local host makes one per request too), on every response and log line. */
export function requestIdOf(event: APIGatewayProxyEvent, context: Context): string {
  return event.requestContext?.requestId || context.awsRequestId || randomUUID();
}

/** Query-string parameter values: `params.<name>=<value>` (the Dune SDKs' form) or `params[<name>]=<value>`. */
const PARAMS_ENTRY = /^params(?:\.(.+)|\[(.+)\])$/;

/** How to say in one value what a repeated option meant (no route reads an option twice). */
const ONE_VALUE_HINTS: Record<string, string> = {
  columns: 'several columns as one comma-separated value, e.g. columns=tx_hash,block_time',
  sort_by: 'several sort keys as one comma-separated value, e.g. sort_by=block_time desc,tx_hash',
  filters:
    "several conditions as one expression joined with AND or OR, e.g. filters=amount > 1 AND kind = 'swap'",
};

/**
 * `_=<timestamp>`, which HTTP clients add to a GET to get past caches (jQuery's `cache: false`):
 * ignored, as Dune ignores it, where any other unknown option is refused as a likely typo.
 */
const CACHE_BUSTER = '_';

/**
 * The query string as one object; every `params.<name>` (or OpenAPI's deepObject `params[<name>]`)
 * entry is gathered into one `params` object, so a strict schema still refuses keys it does not
 * know and its JSON Schema describes `params` as the object it is. An option given twice is
 * refused: API Gateway's `queryStringParameters` keeps only the last value, which would drop the
 * others silently.
 */
function queryParameters(event: APIGatewayProxyEvent): Record<string, unknown> {
  for (const [key, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (key === API_KEY_QUERY_PARAMETER || key === CACHE_BUSTER || !values || values.length < 2) continue;
    const hint = ONE_VALUE_HINTS[key];
    throw new BadRequestError(
      `The query string gives ${key} ${values.length} times; give it once${hint ? `: ${hint}` : ''}.`,
    );
  }
  const {
    [API_KEY_QUERY_PARAMETER]: _apiKey,
    [CACHE_BUSTER]: _cacheBuster,
    ...rest
  } = event.queryStringParameters ?? {};
  const query: Record<string, unknown> = {};
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const entry = PARAMS_ENTRY.exec(key);
    if (entry) params[(entry[1] ?? entry[2])!] = value;
    else query[key] = value;
  }
  return Object.keys(params).length ? { ...query, params } : query;
}

function parseJsonBody(event: APIGatewayProxyEvent, maxBytes = DEFAULT_MAX_BODY_BYTES): unknown {
  if (event.body === null || event.body === undefined || event.body === '') return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes) {
    throw new PayloadTooLargeError(`Request body is ${size} bytes; the limit is ${maxBytes} bytes.`);
  }
  // Parsed whatever the content-type says: `curl -d` sends form-urlencoded by default.
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`Request body is not valid JSON: ${(error as Error).message}`);
  }
}

function parse<T extends ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new BadRequestError(formatZodError(result.error, where));
  return result.data;
}
