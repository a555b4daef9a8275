import { z } from 'zod';
import { PERFORMANCE_TIERS } from '../core/engine';

// The execution operations. Each field's rules and limits live here once; the REST inputs below
// (snake_case, Dune's names and compatibility spellings) and the MCP tool arguments
// (functions/mcp/query-tools.ts, camelCase) are thin renamings over these schemas.

/** The engine tier a run asks for. */
export const tierSchema = z.enum(PERFORMANCE_TIERS).default('medium');

/** An execution's id: the ULID a run returned, in any case. */
export const executionIdSchema = z
  .string()
  .regex(
    /^[0-9A-HJKMNP-TV-Z]{26}$/i,
    'must be the 26-character ULID a run returned, e.g. 01HKZJ2683PHF9Q9PHHQ8FW4Q1',
  )
  .transform((id) => id.toUpperCase());

/** A number schema, as JSON takes it (z.number()) or as a query string does (z.coerce.number()). */
type NumberRules<N> = { int(): N; min(value: number): N };

/**
 * A page's rules, applied to either kind of number: a query-string number coerced and then piped
 * into a JSON number's schema would state only `number` in the OpenAPI document (its input side).
 */
const firstRow = <N extends NumberRules<N>>(number: N) => number.int().min(0);
const rowsPerPage = <N extends NumberRules<N>>(number: N) => number.int().min(1);

/** A page of a result: 0-based first row, and rows per page. */
export const resultPageSchema = z.strictObject({
  offset: firstRow(z.number()).default(0),
  limit: rowsPerPage(z.number()).optional(),
});

/** REST's performance: medium | large; `small` and `free` (seen in Dune clients) run as medium. */
export const performanceSchema = z
  .enum([...PERFORMANCE_TIERS, 'small', 'free'])
  .default('medium')
  .transform((tier) => (tier === 'large' ? 'large' : 'medium') as 'medium' | 'large');

const parameterValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);
// An object with any keys, as a record checks it, but without the `propertyNames` z.record() publishes
// (the MCP tools' schemas avoid it: functions/core/validation.ts, jsonObject).
const valuesByName = z.looseObject({}).catchall(parameterValue);
/** A list of parameter objects, as some clients send on execute: only key (or name) and value count. */
const valuesAsParameterObjects = z
  .array(
    z
      .object({ key: z.string().optional(), name: z.string().optional(), value: parameterValue })
      .refine((p) => (p.key ?? p.name) !== undefined, 'each parameter needs its key (or name)'),
  )
  .max(100)
  .transform((list) => Object.fromEntries(list.map((p) => [(p.key ?? p.name)!, p.value])));

/** Parameter values on execute: `{"chain": "base"}` (the API's and SDKs' form) or `[{key|name, value}]`. */
export const queryParametersSchema = z
  .union([valuesByName, valuesAsParameterObjects], {
    error: 'query_parameters is an object of values by parameter name, e.g. {"chain": "base", "days": 7}',
  })
  .superRefine((values, ctx) => {
    // null read as "the saved default" would hide a client's missing value: it is asked to say which.
    for (const [key, value] of Object.entries(values)) {
      if (value === null) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `parameter "${key}" is null: give it a value, or leave it out to run with the query's saved default`,
        });
      }
    }
  });

/** Parameter values in a query string: URL-encoded JSON text of the same object. */
export const queryParametersTextSchema = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'query_parameters must be a URL-encoded JSON object, e.g. {"chain":"base"}',
      });
      return z.NEVER;
    }
  })
  .pipe(queryParametersSchema);

/** Query-string parameter values: `params.<name>=<value>`, as the Dune SDKs send them on GET requests. */
export const PARAMS_PREFIX = 'params.';

/** `params.<name>` entries, gathered into one object by the route handler (functions/http/route-handler.ts). */
const paramsFromQueryString = z.record(z.string(), z.string()).optional();

export const executeQueryBody = z.strictObject({
  performance: performanceSchema,
  query_parameters: queryParametersSchema.optional(),
});

/**
 * The same inputs may come in the query string (the spec's form): query_parameters as JSON text,
 * or one `params.<name>=<value>` per parameter.
 */
export const executeQueryQuery = z.strictObject({
  performance: z.enum([...PERFORMANCE_TIERS, 'small', 'free']).optional(),
  query_parameters: queryParametersTextSchema.optional(),
  params: paramsFromQueryString,
});

export const executeSqlBody = z.strictObject({
  sql: z.string().trim().min(1, 'sql must not be empty').max(100_000),
  performance: performanceSchema,
  /** Accepted for compatibility (the Go SDK sends it); ad-hoc SQL has no declared parameters. */
  query_parameters: queryParametersSchema.optional(),
});

export const executionIdPath = z.strictObject({ execution_id: executionIdSchema });

const flag = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(['true', 'false'], { error: 'use true or false' }))
  .transform((value) => value === 'true');

/**
 * Result options. `params.<name>` entries choose, on a query's latest-result endpoints, the run with
 * those parameter values; on an execution's endpoints they are accepted and ignored (the SDKs send
 * them there too; an execution's values are fixed).
 */
const resultsOptions = {
  limit: rowsPerPage(z.coerce.number()).optional(),
  offset: firstRow(z.coerce.number()).optional(),
  columns: z.string().max(10_000).optional(),
  filters: z.string().max(4000).optional(),
  sort_by: z.string().max(2000).optional(),
  sample_count: z.coerce.number().int().min(1).max(1_000_000).optional(),
  allow_partial_results: flag.optional(),
  ignore_max_datapoints_per_request: flag.optional(),
  ignore_max_credits_per_request: flag.optional(),
  params: paramsFromQueryString,
};

const sampleAlone = [
  (q: { sample_count?: number; limit?: number; offset?: number; filters?: string }) =>
    q.sample_count === undefined ||
    (q.limit === undefined && q.offset === undefined && q.filters === undefined),
  { message: 'sample_count cannot be combined with limit, offset or filters' },
] as const;

/** A query's latest result: it has finished, nothing to wait for. */
export const resultsQuery = z.strictObject(resultsOptions).refine(...sampleAlone);
export type ResultsQuery = z.output<typeof resultsQuery>;

/** A custom endpoint: its owner's handle and its slug (the view it serves, endpointViewName). */
export const endpointPath = z.strictObject({
  handle: z.string().min(1).max(64).describe("The endpoint owner's handle"),
  slug: z.string().min(1).max(128).describe("The endpoint: the name of the owner's materialized view"),
});

/** Dune's SDK repeats `handle` and `slug` in the query string (client.custom.getResults): ignored. */
export const endpointResultsQuery = z
  .strictObject({ ...resultsOptions, handle: z.string().optional(), slug: z.string().optional() })
  .refine(...sampleAlone);
export type EndpointResultsQuery = z.output<typeof endpointResultsQuery>;

/** How long a status read may wait for its execution to finish, at most (Lambda's timeout is 29 s). */
export const MAX_STATUS_WAIT_MS = 20_000;
/**
 * By default a status read of an unfinished execution (or pipeline run) waits up to a second for
 * it to finish: a client that polls every second (Dune's SDKs) then sees a quick run end as it
 * ends, not a poll later.
 */
export const DEFAULT_STATUS_WAIT_MS = 1_000;

/** `max_wait_ms` of the status endpoints (an execution's, a pipeline run's). */
export const maxWaitMs = (what: string) =>
  z.coerce
    .number({
      error: `must be a whole number of milliseconds from 0 to ${MAX_STATUS_WAIT_MS}, e.g. max_wait_ms=5000`,
    })
    .int(`must be a whole number of milliseconds from 0 to ${MAX_STATUS_WAIT_MS}`)
    .min(0)
    .max(MAX_STATUS_WAIT_MS)
    .default(DEFAULT_STATUS_WAIT_MS)
    .describe(
      `How long the answer may wait for an unfinished ${what} to finish, in milliseconds (0–${MAX_STATUS_WAIT_MS}, default ${DEFAULT_STATUS_WAIT_MS}); it answers as soon as it ends. 0 answers at once.`,
    );

/** An execution's result: an unfinished execution is answered when it ends (as its status). */
export const executionResultsQuery = z
  .strictObject({ ...resultsOptions, max_wait_ms: maxWaitMs('execution') })
  .refine(...sampleAlone);

export const statusQuery = z.strictObject({
  max_wait_ms: maxWaitMs('execution'),
  // Accepted and ignored, as on the results endpoints: an execution's parameter values are fixed.
  params: paramsFromQueryString,
});

export const usageBody = z
  .strictObject({
    start_date: z.iso.date('start_date must be a date like 2026-11-01').optional(),
    end_date: z.iso.date('end_date must be a date like 2026-11-30').optional(),
  })
  .refine((b) => !b.start_date || !b.end_date || b.start_date <= b.end_date, {
    message: 'start_date must not be after end_date',
  })
  .transform((b) => ({ startDate: b.start_date, endDate: b.end_date }));
