import { z } from 'zod';
import {
  type NewQuery,
  PARAMETER_TYPES,
  type ParameterDeclarations,
  type QueryEdit,
  type QueryParameter,
} from '../core/queries';

// Described branches: a bare primitive union becomes a JSON Schema `type` array, which MCP clients
// with one-type schema dialects reject.
const scalar = z
  .union([z.string().describe('text'), z.number().describe('a number'), z.boolean().describe('a flag')])
  .transform(String);

export const parameterKey = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][\w -]*$/, 'parameter keys use letters, digits, underscores, dashes and spaces');

/** `list` is the web app's name for an enum (the Python SDK maps it so too). */
const parameterType = z
  .enum([...PARAMETER_TYPES, 'list'])
  .transform((type): QueryParameter['type'] => (type === 'list' ? 'enum' : type));

/**
 * Dune's Parameter object, keyed by `key` (the API's and Python SDK's name) or `name` (the
 * TypeScript SDK's); other Dune fields (values, enumFromResults) are accepted and ignored.
 */
export const parameterSchema = z
  .object({
    key: parameterKey.optional(),
    name: parameterKey.optional(),
    type: parameterType,
    value: scalar.default(''),
    description: z.string().max(1000).optional(),
    enumOptions: z.array(scalar).max(1000).optional(),
    isMultiselect: z.boolean().optional(),
    isFreeformAllowed: z.boolean().optional(),
  })
  .refine((p) => p.key !== undefined || p.name !== undefined, {
    message:
      'each parameter needs its key (or name), e.g. {"key": "chain", "type": "text", "value": "ethereum"}',
  })
  .refine((p) => p.key === undefined || p.name === undefined || p.key === p.name, {
    message: 'a parameter has key and name that differ; send one of them',
  })
  .transform(
    (p): QueryParameter => ({
      key: (p.key ?? p.name)!,
      type: p.type,
      value: p.value,
      ...(p.description !== undefined ? { description: p.description } : {}),
      ...(p.enumOptions !== undefined ? { enumOptions: p.enumOptions } : {}),
      ...(p.isMultiselect !== undefined ? { isMultiselect: p.isMultiselect } : {}),
      ...(p.isFreeformAllowed !== undefined ? { isFreeformAllowed: p.isFreeformAllowed } : {}),
    }),
  );

export const parameterList = z.array(parameterSchema).max(100, 'a query has at most 100 parameters');

/** `{name: default}`: what the TypeScript SDK sends as `query_parameters` when it saves a query. */
const parameterDefaults = z
  .record(parameterKey, z.union([z.string(), z.number(), z.boolean()]))
  .refine((values) => Object.keys(values).length <= 100, 'a query has at most 100 parameters');

/**
 * A list of declarations or an object of defaults. A plain union, so its JSON Schema shows both
 * forms; a failure is reported by the form the value is (core/validation.ts), or by this message.
 */
export const parameterDeclarations = z.union(
  [parameterList, parameterDefaults.transform((values): ParameterDeclarations => ({ values }))],
  {
    error: (issue) =>
      issue.code === 'invalid_union' && (typeof issue.input !== 'object' || issue.input === null)
        ? 'parameters are a list of {key, type, value} objects, or an object of default values by name ({"chain": "ethereum"})'
        : undefined,
  },
);

// The saved-query operations. Each field's rules and limits live here once; the REST bodies below
// (snake_case, Dune's names and compatibility spellings) and the MCP tool arguments
// (functions/mcp/query-tools.ts, camelCase) are thin renamings over these schemas.

export const queryIdSchema = z.number().int().positive();
const tags = z.array(z.string().trim().min(1).max(64)).max(50);
const description = z.string().max(10_000);

/** createQuery's input, with its defaults. */
export const newQuerySchema = z.strictObject({
  name: z.string().trim().min(1).max(300),
  description: description.default(''),
  querySql: z.string().min(1).max(100_000),
  parameters: parameterDeclarations.default([]),
  tags: tags.default([]),
  isPrivate: z.boolean().default(false),
}) satisfies z.ZodType<NewQuery>;

const newQuery = newQuerySchema.shape;

/** updateQuery's input: the fields present change (tags and parameters are replaced as a whole). */
export const queryEditSchema = z.strictObject({
  name: newQuery.name.optional(),
  description: description.optional(),
  querySql: newQuery.querySql.optional(),
  parameters: parameterDeclarations.optional(),
  tags: tags.optional(),
  isPrivate: z.boolean().optional(),
  isArchived: z.boolean().optional(),
}) satisfies z.ZodType<QueryEdit>;

const queryEdit = queryEditSchema.shape;

// REST bodies: Dune's field names. Both spellings carry the declarations (`parameters` in the API
// docs, `query_parameters` in the SDKs).

const isEmpty = (value: unknown) =>
  value === undefined ||
  (Array.isArray(value) ? value.length === 0 : Object.keys(value as object).length === 0);

const oneParameterField = [
  (body: { parameters?: unknown; query_parameters?: unknown }) =>
    isEmpty(body.parameters) || isEmpty(body.query_parameters),
  { message: 'send parameters or query_parameters, not both' },
] as const;

/** The declarations a body carries, under either name. */
function declarations(body: {
  parameters?: ParameterDeclarations;
  query_parameters?: ParameterDeclarations;
}): ParameterDeclarations | undefined {
  return isEmpty(body.parameters) ? (body.query_parameters ?? body.parameters) : body.parameters;
}

export const createQueryBody = z
  .strictObject({
    name: newQuery.name,
    description: newQuery.description,
    query_sql: newQuery.querySql,
    parameters: queryEdit.parameters,
    query_parameters: queryEdit.parameters,
    tags: newQuery.tags,
    is_private: newQuery.isPrivate,
    /** Accepted for compatibility with Dune clients; every query here is saved. */
    is_temp: z.boolean().optional(),
  })
  .refine(...oneParameterField)
  .transform(
    (body): NewQuery => ({
      name: body.name,
      description: body.description,
      querySql: body.query_sql,
      parameters: declarations(body) ?? [],
      tags: body.tags,
      isPrivate: body.is_private,
    }),
  );

export const updateQueryBody = z
  .strictObject({
    /** Dune's examples repeat the id in the body; it must match the path when present. */
    query_id: queryIdSchema.optional(),
    name: queryEdit.name,
    description: queryEdit.description,
    query_sql: queryEdit.querySql,
    parameters: queryEdit.parameters,
    query_parameters: queryEdit.parameters,
    tags: queryEdit.tags,
    is_private: queryEdit.isPrivate,
    is_archived: queryEdit.isArchived,
  })
  .refine(...oneParameterField)
  .transform((body) => ({
    queryId: body.query_id,
    edit: {
      name: body.name,
      description: body.description,
      querySql: body.query_sql,
      parameters: declarations(body),
      tags: body.tags,
      isPrivate: body.is_private,
      isArchived: body.is_archived,
    } satisfies QueryEdit,
  }));

export const queryIdPath = z.strictObject({
  query_id: z.coerce
    .number({ error: 'query_id must be an integer' })
    .int('query_id must be an integer')
    .positive('query_id must be positive'),
});

export const listQueriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
