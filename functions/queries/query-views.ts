import type { Account } from '../core/accounts';
import { BadRequestError, ForbiddenError, NotFoundError } from '../core/errors';
import type { SqlTableReferenceParser } from '../core/lineage';
import { bindParameters } from '../core/parameters';
import type { QueryStore } from '../core/queries';
import {
  type InlinedView,
  inlineStatement,
  parseQueryViewName,
  type QueryViewOccurrence,
} from '../core/query-views';
import { assertRunnable, readableQuery } from './use-cases';

/** How deep query views may call query views (Dune documents no limit; a chain this long is a mistake). */
export const MAX_QUERY_VIEW_DEPTH = 10;

/** A cheap test before any parsing: SQL that never writes `query_<digit>` calls no view. */
const MAY_CALL_VIEW = /query_\d/i;

interface QueryViewDeps {
  queries: QueryStore;
  sqlParser: SqlTableReferenceParser;
}

/**
 * Replaces every query view the SQL calls (`query_<id>`, `"query_<id>(name='value')"`) by the
 * called query's SQL as a subquery under the same name, recursively, as Dune runs them: "executed
 * as functional SQL views", with the caller's rights. A called query must be readable by the caller
 * (its own or public) and not archived; its parameters take the values passed (as SQL text, Dune's
 * macro) or their saved defaults. A cycle, a query that cannot be read and an unknown parameter
 * are 400s that say which view.
 *
 * SQL the parser cannot read is returned as it is: the engine reports the error, positioned.
 */
export async function expandQueryViews(
  deps: QueryViewDeps,
  account: Account,
  sql: string,
  /** The saved query whose SQL this is, if any (a view calling it back is a cycle). */
  callerQueryId?: number,
): Promise<string> {
  return (await expandQueryViewsTraced(deps, account, sql, callerQueryId)).sql;
}

/** The same, with where each view the SQL calls went (an error inside one is reported at its call). */
export function expandQueryViewsTraced(
  deps: QueryViewDeps,
  account: Account,
  sql: string,
  callerQueryId?: number,
): Promise<{ sql: string; views: InlinedView[] }> {
  return expand(deps, account, sql, callerQueryId === undefined ? [] : [callerQueryId], 0);
}

/** `calledFrom`: the saved queries whose SQL this is inside, outermost first; `depth`: the views among them. */
async function expand(
  deps: QueryViewDeps,
  account: Account,
  sql: string,
  calledFrom: readonly number[],
  depth: number,
): Promise<{ sql: string; views: InlinedView[] }> {
  const unchanged = { sql, views: [] };
  if (!MAY_CALL_VIEW.test(sql)) return unchanged;
  let occurrences: QueryViewOccurrence[];
  try {
    occurrences = await deps.sqlParser.queryViewsCalledBy(sql);
  } catch (error) {
    if (depth === 0 || !(error instanceof BadRequestError)) return unchanged;
    throw new BadRequestError(`Query ${calledFrom.at(-1)} (called as a query view): ${error.message}`);
  }
  if (occurrences.length === 0) return unchanged;

  const bodies = new Map<string, Promise<string>>();
  const bodyOf = (name: string) => {
    let body = bodies.get(name);
    if (!body) {
      body = calledBody(deps, account, name, calledFrom, depth);
      body.catch(() => undefined); // awaited below
      bodies.set(name, body);
    }
    return body;
  };
  for (const occurrence of occurrences) bodyOf(occurrence.name);

  let expanded = '';
  let copied = 0;
  const views: InlinedView[] = [];
  for (const occurrence of occurrences) {
    const written = sql.slice(occurrence.start, occurrence.end);
    const body = await bodyOf(occurrence.name);
    expanded += sql.slice(copied, occurrence.start);
    const start = expanded.length;
    expanded += `(${body})${occurrence.aliased ? '' : ` AS ${written}`}`;
    views.push({ start, end: expanded.length, text: written });
    copied = occurrence.end;
  }
  return { sql: expanded + sql.slice(copied), views };
}

/** The SQL a view name stands for: the called query, its parameters bound, its own views expanded. */
async function calledBody(
  deps: QueryViewDeps,
  account: Account,
  name: string,
  calledFrom: readonly number[],
  depth: number,
): Promise<string> {
  const call = parseQueryViewName(name);
  const chain = [...calledFrom, call.queryId];
  if (calledFrom.includes(call.queryId)) {
    throw new BadRequestError(
      `The query views call each other in a cycle: ${chain.map((id) => `query_${id}`).join(' → ')}. A query cannot read itself.`,
    );
  }
  if (depth >= MAX_QUERY_VIEW_DEPTH) {
    throw new BadRequestError(
      `Query views are nested more than ${MAX_QUERY_VIEW_DEPTH} deep (${chain.map((id) => `query_${id}`).join(' → ')}); read a materialized view for the deeper levels.`,
    );
  }
  let query: Awaited<ReturnType<typeof readableQuery>>;
  try {
    query = await readableQuery(deps.queries, account, call.queryId);
    assertRunnable(query);
  } catch (error) {
    if (!(error instanceof NotFoundError || error instanceof ForbiddenError)) throw error;
    throw new BadRequestError(`The SQL reads the query view ${name}: ${error.message}`);
  }
  const declared = new Set(query.parameters.map((parameter) => parameter.key));
  for (const key of call.arguments.keys()) {
    if (!declared.has(key)) {
      const known = [...declared].map((k) => `"${k}"`).join(', ');
      throw new BadRequestError(
        `The query view ${name} passes "${key}", but query ${call.queryId} has ${known ? `the parameters ${known}` : 'no parameters'}.`,
      );
    }
  }
  let bound: string;
  try {
    bound = bindParameters(query.querySql, query.parameters, {}, call.arguments);
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    throw new BadRequestError(
      `The query view ${name}: ${error.message.replace('pass it in query_parameters', `pass it as "query_${call.queryId}(name='value')"`)}`,
    );
  }
  return inlineStatement((await expand(deps, account, bound, chain, depth + 1)).sql);
}
