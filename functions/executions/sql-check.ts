import type { Account } from '../core/accounts';
import { QueryFailure } from '../core/engine';
import { ServiceError } from '../core/errors';
import type { Position } from '../core/query-views';
import type { Services } from '../services';
import { asWritten } from './query-run';
import { readableRelations } from './readable-relations';
import { savedQueryRequest } from './use-cases';

/** What a check of a saved query's SQL found: nothing, or what a run of it would fail with now. */
export interface SqlCheck {
  ok: boolean;
  error?: { type: string; message: string; position?: Position };
}

/**
 * Checks a saved query's SQL the way a run of it would be prepared now (its parameters' defaults
 * bound, the queries it reads inlined, with the views and uploaded tables it may read), without
 * running it: what the engine refuses before it starts (syntax, another dialect's forms, unknown
 * functions, comparisons Trino refuses, tables and columns that do not exist).
 */
export async function checkSavedQuery(
  services: Services,
  account: Account,
  queryId: number,
): Promise<SqlCheck> {
  let request: Awaited<ReturnType<typeof savedQueryRequest>>;
  try {
    request = await savedQueryRequest(services, account, queryId, { tier: 'medium' });
  } catch (error) {
    // A query it reads is missing or private, a parameter's default is invalid: a run fails alike.
    if (error instanceof ServiceError)
      return { ok: false, error: { type: 'invalid_query', message: error.message } };
    throw error;
  }
  let failure: QueryFailure | undefined;
  try {
    const relations = await readableRelations(services, account.accountId, request.sql);
    failure = await services.engine.check({ sql: request.sql, relations });
  } catch (error) {
    if (!(error instanceof QueryFailure)) throw error;
    failure = error; // it reads a view that has not completed a refresh
  }
  if (!failure) return { ok: true };
  const written = asWritten(request, failure);
  return {
    ok: false,
    error: {
      type: failure.type,
      message: written.message,
      ...(written.position ? { position: written.position } : {}),
    },
  };
}
