import { type ZodType, z } from 'zod';
import { API_KEY_HEADER, API_KEY_QUERY_PARAMETER } from '../auth/credentials';
import type { DocumentedHandler, ErrorStatus, RouteSpec } from '../http/route-handler';
import { type RouteDefinition, routes } from '../routes';
import { HANDLER_MODULES } from './handler-modules';

/**
 * The OpenAPI 3.1 document of every `/v1` route, generated from the route table and the zod
 * schemas each route's handler validates with (their input side for requests, output side for
 * answers), so the document cannot drift from what the handlers accept.
 */
type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

export const OPENAPI_PATH_PREFIX = '/v1/';
const VERSION = '0.1.0';

type AnyStatus = ErrorStatus | 401 | 413 | 415 | 429 | 500;

const ERROR_DESCRIPTIONS: Record<AnyStatus, string> = {
  400: 'Bad request: the input is invalid (the message names the field and the rule), or the credentials are ambiguous.',
  401: 'No credentials, or an API key or token that is not valid.',
  402: 'The billing period’s credit limit is reached.',
  403: 'Not allowed: the resource belongs to another account, or it is archived.',
  404: 'Not found, or private to another account.',
  409: 'Conflict with the resource’s current state (a concurrent change, a finished run, a name in use).',
  413: 'The request body is too large.',
  415: 'The request body’s Content-Type is not one the route reads.',
  429: 'Too many requests: the account’s read or write budget for this minute is used up (wait `Retry-After` seconds), or the API as a whole is throttled (`Retry-After: 1`, no `X-RateLimit-*` headers).',
  500: 'Internal error; the message carries the request id.',
  501: 'Not available on this host.',
};

const SECURITY_SCHEMES = {
  apiKeyHeader: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
  apiKeyQuery: { type: 'apiKey', in: 'query', name: API_KEY_QUERY_PARAMETER },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An OAuth access token from this service’s authorization server (/oauth/mcp).',
  },
};

let cached: { baseUrl: string; document: JsonSchema } | undefined;

export function openApiDocument(baseUrl: string): JsonSchema {
  if (cached?.baseUrl !== baseUrl) cached = { baseUrl, document: buildDocument(baseUrl) };
  return cached.document;
}

function buildDocument(baseUrl: string): JsonSchema {
  const components = new Components();
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes.filter((r) => r.path.startsWith(OPENAPI_PATH_PREFIX))) {
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operationOf(route, specOf(route), components),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Onchain SQL analytics service',
      version: VERSION,
      description:
        'Saved queries, executions, paged results, materialized views, query pipelines, visualizations and dashboards over onchain data. Errors are `{"error": "..."}` with a 4xx or 5xx status. Request and response field names follow Dune’s API.',
    },
    servers: [{ url: baseUrl }],
    security: Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] })),
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { Error: ERROR_SCHEMA, ...components.schemas },
      responses: Object.fromEntries(
        Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) => [
          errorResponseName(Number(status) as AnyStatus),
          {
            description,
            ...(status === '429' ? { headers: RATE_LIMIT_HEADERS } : {}),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}

/** What a refusal over the account's budget carries (functions/accounts/rate-limits.ts). */
const RATE_LIMIT_HEADERS = {
  'Retry-After': {
    description: 'Seconds until the budget renews (1 when the whole API is throttled).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Limit': { description: 'Requests of this class per minute.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Left in this minute: 0.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'When the budget renews, in UTC epoch seconds.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Resource': { description: 'Which budget: `read` or `write`.', schema: { type: 'string' } },
};

const ERROR_SCHEMA = {
  type: 'object',
  properties: { error: { type: 'string', description: 'What went wrong and how to fix it.' } },
  required: ['error'],
};

function specOf(route: RouteDefinition): RouteSpec<ZodType, ZodType, ZodType> {
  const handler = HANDLER_MODULES[route.entry]?.[route.handler] as Partial<DocumentedHandler> | undefined;
  if (!handler?.routeSpec) {
    throw new Error(`${route.method} ${route.path}: ${route.entry} ${route.handler} is not a routeHandler`);
  }
  return handler.routeSpec;
}

/** The header that makes a resent request answer as the first did (functions/http/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any unique string (e.g. a UUID), 1-255 visible ASCII characters. The same request again with the same key within 24 hours gets the first answer (header Idempotent-Replayed: true) instead of running again; the same key with a different request is a 400; while the first still runs, 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function operationOf(
  route: RouteDefinition,
  spec: RouteSpec<ZodType, ZodType, ZodType>,
  components: Components,
): Operation {
  const docs = spec.docs ?? {};
  const authenticated = spec.auth !== 'none';
  const parameters = [
    ...(spec.path ? parametersOf(spec.path, 'path', components) : []),
    ...(spec.query ? parametersOf(spec.query, 'query', components) : []),
    ...(spec.idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : []),
  ];
  const errors = errorStatuses(spec, authenticated);
  return {
    operationId: route.handler,
    summary: docs.summary ?? sentenceOf(route.handler),
    ...(route.supersededBy
      ? {
          description: `Deprecated, as on Dune: use \`${route.supersededBy}\`, which takes the same request and gives the same answer. This path stays for the clients that still call it.`,
          deprecated: true,
        }
      : {}),
    tags: [featureOf(route)],
    ...(authenticated ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            // A body that accepts `{}` may be left out (the handler reads a missing body as `{}`).
            required: !spec.body.safeParse({}).success,
            content: { 'application/json': { schema: components.add(spec.body, 'input') } },
          },
        }
      : {}),
    ...(docs.consumes
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(docs.consumes.map((type) => [type, { schema: { type: 'string' } }])),
          },
        }
      : {}),
    responses: {
      200: successResponse(docs.produces, docs.response, components),
      ...Object.fromEntries(
        errors.map((status) => [
          String(status),
          { $ref: `#/components/responses/${errorResponseName(status)}` },
        ]),
      ),
    },
  };
}

/** The failures a route can answer with: those of every route of its kind, and its own. */
function errorStatuses(spec: RouteSpec<ZodType, ZodType, ZodType>, authenticated: boolean): AnyStatus[] {
  const statuses = new Set<AnyStatus>(spec.docs?.errors ?? []);
  if (authenticated || spec.body || spec.query || spec.path) statuses.add(400);
  if (authenticated) {
    statuses.add(401);
    statuses.add(403);
  }
  if (spec.path) statuses.add(404);
  // A request resent with its Idempotency-Key while the first still runs.
  if (spec.idempotent) statuses.add(409);
  if (spec.body || spec.docs?.consumes) statuses.add(413);
  if (spec.docs?.consumes) statuses.add(415);
  statuses.add(429);
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

function successResponse(
  produces: string | undefined,
  response: ZodType | undefined,
  components: Components,
) {
  if (produces) {
    const binary = !produces.startsWith('text/') && !produces.includes('xml');
    return {
      description: `The ${produces} document.`,
      content: {
        [produces]: { schema: binary ? { type: 'string', contentMediaType: produces } : { type: 'string' } },
      },
    };
  }
  return {
    description: 'OK',
    content: {
      'application/json': { schema: response ? components.add(response, 'output') : { type: 'object' } },
    },
  };
}

/** One OpenAPI parameter per property of a path or query schema. */
function parametersOf(schema: ZodType, where: 'path' | 'query', components: Components) {
  const json = components.add(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    const isObject = propertySchema.type === 'object';
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      // An object in the query string is `name[key]=value` (`params.key=value` is accepted too).
      ...(isObject ? { style: 'deepObject', explode: true } : {}),
      schema: propertySchema,
    };
  });
}

/**
 * JSON Schemas from zod, with shared definitions (`$defs`, e.g. of a recursive JSON value) moved
 * into `components.schemas`, where `$ref`s can reach them from anywhere in the document.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private count = 0;

  add(schema: ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _dialect,
      $defs,
      ...json
    } = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'throw',
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    if (!$defs) return json;
    const prefix = `Schema${++this.count}_`;
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
            ? `#/components/schemas/${prefix}${inner.slice('#/$defs/'.length)}`
            : rewrite(inner),
        ]),
      );
    };
    for (const [name, definition] of Object.entries($defs)) {
      this.schemas[`${prefix}${name}`] = rewrite(definition) as JsonSchema;
    }
    return rewrite(json) as JsonSchema;
  }
}

function errorResponseName(status: AnyStatus): string {
  return `Error${status}`;
}

/** `functions/queries/handlers.ts` → `queries`. */
function featureOf(route: RouteDefinition): string {
  return route.entry.split('/').at(-2) ?? 'api';
}

/** `getExecutionResultsCsv` → `Get execution results csv`. */
function sentenceOf(handler: string): string {
  const words = handler.replace(/([A-Z])/g, ' $1').toLowerCase();
  return words[0]!.toUpperCase() + words.slice(1);
}
