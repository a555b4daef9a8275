import type { z } from 'zod';
import type { Account } from '../core/accounts';
import { BadRequestError, ForbiddenError, NotFoundError } from '../core/errors';
import { validateParameterDefinitions } from '../core/parameters';
import type { QueryChanges, QueryParameter, QueryStore, SavedQuery } from '../core/queries';
import type { createQueryBody, parameterSchema, updateQueryBody } from './schemas';

/** A query the caller may read: their own, or another account's public one. Private ones are 404. */
export async function readableQuery(
  store: QueryStore,
  account: Account,
  queryId: number,
): Promise<SavedQuery> {
  const query = await store.get(queryId);
  if (!query || (query.isPrivate && query.accountId !== account.accountId)) {
    throw new NotFoundError(`Query ${queryId} not found or private.`);
  }
  return query;
}

/** A query the caller may change: only the owner's. */
export async function ownedQuery(store: QueryStore, account: Account, queryId: number): Promise<SavedQuery> {
  const query = await readableQuery(store, account, queryId);
  if (query.accountId !== account.accountId) {
    throw new ForbiddenError(`Query ${queryId} belongs to another account; only its owner can change it.`);
  }
  return query;
}

export function assertRunnable(query: SavedQuery): void {
  if (query.isArchived) {
    throw new ForbiddenError(
      `Query ${query.queryId} is archived and cannot be run or edited; unarchive it first with POST /v1/query/${query.queryId}/unarchive.`,
    );
  }
}

export async function createQuery(
  store: QueryStore,
  account: Account,
  body: z.output<typeof createQueryBody>,
  now = new Date(),
): Promise<SavedQuery> {
  const parameters = body.parameters.map(toParameter);
  validateParameterDefinitions(body.query_sql, parameters);
  const at = now.toISOString();
  const query: SavedQuery = {
    queryId: await store.nextQueryId(),
    accountId: account.accountId,
    ownerHandle: account.handle,
    name: body.name,
    description: body.description,
    querySql: body.query_sql,
    parameters,
    tags: dedupe(body.tags),
    isPrivate: body.is_private,
    isArchived: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  await store.create(query);
  return query;
}

export async function updateQuery(
  store: QueryStore,
  account: Account,
  queryId: number,
  body: z.output<typeof updateQueryBody>,
  now = new Date(),
): Promise<SavedQuery> {
  if (body.query_id !== undefined && body.query_id !== queryId) {
    throw new BadRequestError(`Body query_id ${body.query_id} does not match the path's query ${queryId}.`);
  }
  const current = await ownedQuery(store, account, queryId);
  const unarchiving = body.is_archived === false;
  if (current.isArchived && !unarchiving) assertRunnable(current);
  const changes: QueryChanges = {
    name: body.name,
    description: body.description,
    querySql: body.query_sql,
    parameters: body.parameters?.map(toParameter),
    tags: body.tags ? dedupe(body.tags) : undefined,
    isPrivate: body.is_private,
    isArchived: body.is_archived,
  };
  if (changes.querySql !== undefined || changes.parameters !== undefined) {
    validateParameterDefinitions(
      changes.querySql ?? current.querySql,
      changes.parameters ?? current.parameters,
    );
  }
  return store.update(queryId, current.version, changes, now.toISOString());
}

/** archive / unarchive / private / unprivate: one flag, owner only. */
export async function setQueryFlag(
  store: QueryStore,
  account: Account,
  queryId: number,
  change: Pick<QueryChanges, 'isArchived' | 'isPrivate'>,
  now = new Date(),
): Promise<SavedQuery> {
  const current = await ownedQuery(store, account, queryId);
  return store.update(queryId, current.version, change, now.toISOString());
}

export async function listQueries(store: QueryStore, account: Account, limit: number, offset: number) {
  return store.listByAccount(account.accountId, limit, offset);
}

function toParameter(input: z.output<typeof parameterSchema>): QueryParameter {
  return {
    key: input.key,
    type: input.type,
    value: input.value,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.enumOptions !== undefined ? { enumOptions: input.enumOptions } : {}),
    ...(input.isMultiselect !== undefined ? { isMultiselect: input.isMultiselect } : {}),
  };
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}
