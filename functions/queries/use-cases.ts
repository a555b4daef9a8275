import type { Account } from '../core/accounts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import type { MaterializedViewStore } from '../core/materialized-views';
import { parametersFromValues, validateParameterDefinitions } from '../core/parameters';
import type {
  NewQuery,
  ParameterDeclarations,
  QueryChanges,
  QueryEdit,
  QueryParameter,
  QueryStore,
  SavedQuery,
} from '../core/queries';

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
  input: NewQuery,
  now = new Date(),
): Promise<SavedQuery> {
  const parameters = declaredParameters(input.parameters);
  validateParameterDefinitions(input.querySql, parameters);
  const at = now.toISOString();
  const query: SavedQuery = {
    queryId: await store.nextQueryId(),
    accountId: account.accountId,
    ownerHandle: account.handle,
    name: input.name,
    description: input.description,
    querySql: input.querySql,
    parameters,
    tags: dedupe(input.tags),
    isPrivate: input.isPrivate,
    isArchived: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  await store.create(query);
  return query;
}

export async function updateQuery(
  deps: { queries: QueryStore; materializedViews: Pick<MaterializedViewStore, 'listByAccount'> },
  account: Account,
  queryId: number,
  edit: QueryEdit,
  now = new Date(),
): Promise<SavedQuery> {
  const store = deps.queries;
  if (Object.values(edit).every((value) => value === undefined)) {
    throw new BadRequestError(
      'Nothing to change: send at least one of the name, description, SQL, parameters, tags, or the private or archived flag.',
    );
  }
  const current = await ownedQuery(store, account, queryId);
  const unarchiving = edit.isArchived === false;
  if (current.isArchived && !unarchiving) assertRunnable(current);
  const changes: QueryChanges = {
    name: edit.name,
    description: edit.description,
    querySql: edit.querySql,
    parameters: edit.parameters && declaredParameters(edit.parameters, current.parameters),
    tags: edit.tags ? dedupe(edit.tags) : undefined,
    isPrivate: edit.isPrivate,
    isArchived: edit.isArchived,
  };
  if (changes.querySql !== undefined || changes.parameters !== undefined) {
    validateParameterDefinitions(
      changes.querySql ?? current.querySql,
      changes.parameters ?? current.parameters,
    );
    if ((changes.parameters ?? current.parameters).length > 0) {
      await assertBacksNoView(deps.materializedViews, account, queryId);
    }
  }
  return store.update(queryId, current.version, changes, now.toISOString());
}

/**
 * A materialized view stores one result of its query, so the query takes no parameters (the
 * upsert refuses one that does): an edit that would give it some is a 409 naming the views.
 */
async function assertBacksNoView(
  views: Pick<MaterializedViewStore, 'listByAccount'>,
  account: Account,
  queryId: number,
): Promise<void> {
  const backed = (await views.listByAccount(account.accountId)).filter((view) => view.queryId === queryId);
  if (backed.length === 0) return;
  const names = backed.map((view) => view.fullName).join(', ');
  throw new ConflictError(
    `Query ${queryId} backs the materialized view${backed.length > 1 ? 's' : ''} ${names}, and a view's query cannot take parameters: keep the query without parameters, or delete the view first (DELETE /v1/materialized-views/${backed[0]!.fullName}) and save the parameters then.`,
  );
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

function declaredParameters(
  declarations: ParameterDeclarations,
  current: readonly QueryParameter[] = [],
): QueryParameter[] {
  return Array.isArray(declarations) ? declarations : parametersFromValues(declarations.values, current);
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}
