import { z } from 'zod';
import { PARAMETER_TYPES } from '../core/queries';

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/** Dune's Parameter object; extra Dune fields (values, isFreeformAllowed, enumFromResults) are accepted and ignored. */
export const parameterSchema = z.object({
  key: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z_][\w -]*$/, 'parameter keys use letters, digits, underscores, dashes and spaces'),
  type: z.enum(PARAMETER_TYPES),
  value: scalar.default(''),
  description: z.string().max(1000).optional(),
  enumOptions: z.array(scalar).max(1000).optional(),
  isMultiselect: z.boolean().optional(),
});

const name = z.string().trim().min(1).max(300);
const description = z.string().max(10_000);
const querySql = z.string().min(1).max(100_000);
const tags = z.array(z.string().trim().min(1).max(64)).max(50);

export const createQueryBody = z.strictObject({
  name,
  description: description.default(''),
  query_sql: querySql,
  parameters: z.array(parameterSchema).max(100).default([]),
  tags: tags.default([]),
  is_private: z.boolean().default(false),
  /** Accepted for compatibility with Dune clients; every query here is saved. */
  is_temp: z.boolean().optional(),
});

export const updateQueryBody = z
  .strictObject({
    /** Dune's examples repeat the id in the body; it must match the path when present. */
    query_id: z.number().int().positive().optional(),
    name: name.optional(),
    description: description.optional(),
    query_sql: querySql.optional(),
    parameters: z.array(parameterSchema).max(100).optional(),
    tags: tags.optional(),
    is_private: z.boolean().optional(),
    is_archived: z.boolean().optional(),
  })
  .refine((body) => Object.entries(body).some(([key, value]) => key !== 'query_id' && value !== undefined), {
    message:
      'nothing to change: send at least one of name, description, query_sql, parameters, tags, is_private, is_archived',
  });

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
