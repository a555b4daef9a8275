import { z } from 'zod';
import { PARAMETER_TYPES, type SavedQuery } from '../core/queries';
import { pagination, paginationSchema } from '../http/pagination';

// REST answers (Dune's field names). The schemas document the answers in the OpenAPI document and
// type the functions that build them, so the two cannot differ.

const parameterResponse = z.object({
  key: z.string(),
  type: z.enum(PARAMETER_TYPES),
  value: z.string().describe('The default value, as text.'),
  description: z.string().optional(),
  enumOptions: z.array(z.string()).optional(),
  isMultiselect: z.boolean().optional(),
  isFreeformAllowed: z.boolean().optional(),
});

export const savedQueryResponse = z.object({
  query_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  query_sql: z.string(),
  owner: z.string().describe("The owner account's handle."),
  is_private: z.boolean(),
  is_archived: z.boolean(),
  is_unsaved: z.boolean(),
  version: z.number().int(),
  query_engine: z.string(),
  tags: z.array(z.string()),
  parameters: z.array(parameterResponse),
  created_at: z.string(),
  updated_at: z.string(),
});

export function queryResponse(query: SavedQuery): z.output<typeof savedQueryResponse> {
  return {
    query_id: query.queryId,
    name: query.name,
    description: query.description,
    query_sql: query.querySql,
    owner: query.ownerHandle,
    is_private: query.isPrivate,
    is_archived: query.isArchived,
    is_unsaved: false,
    version: query.version,
    query_engine: 'medium',
    tags: query.tags,
    parameters: query.parameters,
    created_at: query.createdAt,
    updated_at: query.updatedAt,
  };
}

const queryListItem = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  tags: z.array(z.string()),
  is_private: z.boolean(),
  is_archived: z.boolean(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const queryListResponse = z.object({
  queries: z.array(queryListItem),
  total: z.number().int(),
  ...paginationSchema.shape,
});

export function queryListResponseOf(
  page: { queries: SavedQuery[]; total: number },
  limit: number,
  offset: number,
): z.output<typeof queryListResponse> {
  return {
    queries: page.queries.map((query) => ({
      id: query.queryId,
      name: query.name,
      description: query.description,
      owner: query.ownerHandle,
      tags: query.tags,
      is_private: query.isPrivate,
      is_archived: query.isArchived,
      version: query.version,
      created_at: query.createdAt,
      updated_at: query.updatedAt,
    })),
    total: page.total,
    ...pagination(page.total, limit, offset),
  };
}

export const createdQueryResponse = z.object({ query_id: z.number().int() });
export const updatedQueryResponse = z.object({ query_id: z.number().int(), version: z.number().int() });
export const queryFlagsResponse = z.object({
  query_id: z.number().int(),
  is_archived: z.boolean(),
  is_private: z.boolean(),
});
