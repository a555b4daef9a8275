import { BadRequestError } from '../core/errors';
import { pagination } from '../http/pagination';
import { routeHandler } from '../http/route-handler';
import { queryListItem, queryResponse } from './presenter';
import { createQueryBody, listQueriesQuery, queryIdPath, updateQueryBody } from './schemas';
import * as queries from './use-cases';

export const createQuery = routeHandler({ body: createQueryBody }, async ({ services, account, body }) => {
  const query = await queries.createQuery(services.queries, account, body);
  return { query_id: query.queryId };
});

export const getQuery = routeHandler({ path: queryIdPath }, async ({ services, account, path }) =>
  queryResponse(await queries.readableQuery(services.queries, account, path.query_id)),
);

export const updateQuery = routeHandler(
  { path: queryIdPath, body: updateQueryBody },
  async ({ services, account, path, body }) => {
    if (body.queryId !== undefined && body.queryId !== path.query_id) {
      throw new BadRequestError(
        `Body query_id ${body.queryId} does not match the path's query ${path.query_id}.`,
      );
    }
    const query = await queries.updateQuery(services.queries, account, path.query_id, body.edit);
    return { query_id: query.queryId, version: query.version };
  },
);

const flagRoute = (change: { isArchived?: boolean; isPrivate?: boolean }) =>
  routeHandler({ path: queryIdPath }, async ({ services, account, path }) => {
    const query = await queries.setQueryFlag(services.queries, account, path.query_id, change);
    return { query_id: query.queryId, is_archived: query.isArchived, is_private: query.isPrivate };
  });

export const archiveQuery = flagRoute({ isArchived: true });
export const unarchiveQuery = flagRoute({ isArchived: false });
export const makeQueryPrivate = flagRoute({ isPrivate: true });
export const makeQueryPublic = flagRoute({ isPrivate: false });

export const listQueries = routeHandler({ query: listQueriesQuery }, async ({ services, account, query }) => {
  const { queries: page, total } = await queries.listQueries(
    services.queries,
    account,
    query.limit,
    query.offset,
  );
  return { queries: page.map(queryListItem), total, ...pagination(total, query.limit, query.offset) };
});
