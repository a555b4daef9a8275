import { BadRequestError } from '../core/errors';
import { routeHandler } from '../http/route-handler';
import {
  createdQueryResponse,
  queryFlagsResponse,
  queryListResponse,
  queryListResponseOf,
  queryResponse,
  savedQueryResponse,
  updatedQueryResponse,
} from './presenter';
import { createQueryBody, listQueriesQuery, queryIdPath, updateQueryBody } from './schemas';
import * as queries from './use-cases';

export const createQuery = routeHandler(
  {
    idempotent: true,
    body: createQueryBody,
    docs: { summary: 'Save a query', response: createdQueryResponse },
  },
  async ({ services, account, body }) => {
    const query = await queries.createQuery(services.queries, account, body);
    return { query_id: query.queryId };
  },
);

export const getQuery = routeHandler(
  { path: queryIdPath, docs: { summary: 'Read a saved query', response: savedQueryResponse } },
  async ({ services, account, path }) =>
    queryResponse(await queries.readableQuery(services.queries, account, path.query_id)),
);

export const updateQuery = routeHandler(
  {
    path: queryIdPath,
    body: updateQueryBody,
    docs: { summary: 'Change a saved query', response: updatedQueryResponse, errors: [409] },
  },
  async ({ services, account, path, body }) => {
    if (body.queryId !== undefined && body.queryId !== path.query_id) {
      throw new BadRequestError(
        `Body query_id ${body.queryId} does not match the path's query ${path.query_id}.`,
      );
    }
    const query = await queries.updateQuery(services, account, path.query_id, body.edit);
    return { query_id: query.queryId, version: query.version };
  },
);

const flagRoute = (summary: string, change: { isArchived?: boolean; isPrivate?: boolean }) =>
  routeHandler(
    { path: queryIdPath, docs: { summary, response: queryFlagsResponse, errors: [409] } },
    async ({ services, account, path }) => {
      const query = await queries.setQueryFlag(services.queries, account, path.query_id, change);
      return { query_id: query.queryId, is_archived: query.isArchived, is_private: query.isPrivate };
    },
  );

export const archiveQuery = flagRoute('Archive a query (it can no longer run)', { isArchived: true });
export const unarchiveQuery = flagRoute('Unarchive a query', { isArchived: false });
export const makeQueryPrivate = flagRoute('Make a query private', { isPrivate: true });
export const makeQueryPublic = flagRoute('Make a query public', { isPrivate: false });

export const listQueries = routeHandler(
  { query: listQueriesQuery, docs: { summary: "List the caller's queries", response: queryListResponse } },
  async ({ services, account, query }) =>
    queryListResponseOf(
      await queries.listQueries(services.queries, account, query.limit, query.offset),
      query.limit,
      query.offset,
    ),
);
