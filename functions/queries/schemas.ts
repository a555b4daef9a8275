import { z } from 'zod';
import { PARAMETER_TYPES, type ParameterDeclarations, type QueryParameter } from '../core/queries';

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
const parameterDeclarations = z.union([parameterList, parameterDefaults], {
  error: (issue) =>
    issue.code === 'invalid_union' && (typeof issue.input !== 'object' || issue.input === null)
      ? 'parameters are a list of {key, type, value} objects, or an object of default values by name ({"chain": "ethereum"})'
      : undefined,
});

const name = z.string().trim().min(1).max(300);
const description = z.string().max(10_000);
const querySql = z.string().min(1).max(100_000);
const tags = z.array(z.string().trim().min(1).max(64)).max(50);

/** Both spellings carry the declarations (`parameters` in the API docs, `query_parameters` in the SDKs). */
const parameterFields = {
  parameters: parameterDeclarations.optional(),
  query_parameters: parameterDeclarations.optional(),
};

const isEmpty = (value: unknown) =>
  value === undefined ||
  (Array.isArray(value) ? value.length === 0 : Object.keys(value as object).length === 0);

const oneParameterField = [
  (body: { parameters?: unknown; query_parameters?: unknown }) =>
    isEmpty(body.parameters) || isEmpty(body.query_parameters),
  { message: 'send parameters or query_parameters, not both' },
] as const;

function declarations(body: {
  parameters?: z.output<typeof parameterDeclarations>;
  query_parameters?: z.output<typeof parameterDeclarations>;
}): ParameterDeclarations | undefined {
  const chosen = isEmpty(body.parameters) ? (body.query_parameters ?? body.parameters) : body.parameters;
  if (chosen === undefined) return undefined;
  return Array.isArray(chosen) ? chosen : { values: chosen };
}

export const createQueryBody = z
  .strictObject({
    name,
    description: description.default(''),
    query_sql: querySql,
    ...parameterFields,
    tags: tags.default([]),
    is_private: z.boolean().default(false),
    /** Accepted for compatibility with Dune clients; every query here is saved. */
    is_temp: z.boolean().optional(),
  })
  .refine(...oneParameterField)
  .transform((body) => ({
    name: body.name,
    description: body.description,
    querySql: body.query_sql,
    parameters: declarations(body) ?? [],
    tags: body.tags,
    isPrivate: body.is_private,
  }));

export const updateQueryBody = z
  .strictObject({
    /** Dune's examples repeat the id in the body; it must match the path when present. */
    query_id: z.number().int().positive().optional(),
    name: name.optional(),
    description: description.optional(),
    query_sql: querySql.optional(),
    ...parameterFields,
    tags: tags.optional(),
    is_private: z.boolean().optional(),
    is_archived: z.boolean().optional(),
  })
  .refine((body) => Object.entries(body).some(([key, value]) => key !== 'query_id' && value !== undefined), {
    message:
      'nothing to change: send at least one of name, description, query_sql, parameters, tags, is_private, is_archived',
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
    },
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
