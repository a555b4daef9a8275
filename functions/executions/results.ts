import type { Account } from '../core/accounts';
import type { ResultPage, ResultPageRequest, ResultValue } from '../core/engine';
import { BadRequestError, ConflictError, NotFoundError } from '../core/errors';
import type { Execution } from '../core/executions';
import { endpointViewName, isReadableBy } from '../core/materialized-views';
import { checkParameterValues, usedParameterValues } from '../core/parameters';
import { parseColumns, parseResultFilter, parseSortBy } from '../core/result-filter';
import { duneSqlTypeName } from '../core/sql-types';
import { readableQuery } from '../queries/use-cases';
import type { Services } from '../services';
import { executionStatus, resultMetadata } from './presenter';
import { type EndpointResultsQuery, PARAMS_PREFIX, type ResultsQuery } from './schemas';
import { awaitExecutionEnd, queuePosition } from './use-cases';

/** Rows per page at most: an oversized `limit` is lowered and `next_offset` says where to go on. */
export const MAX_PAGE_ROWS = 30_000;
/** JSON pages stay well under Lambda's 6 MB response limit. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

export interface ResultsLocation {
  /** Base URL and path of the results endpoint, for `next_uri`. */
  baseUrl: string;
  path: string;
}

/**
 * `GET /v1/execution/{id}/status`: the state once the execution has finished, or as it stands
 * after `waitMillis` (see DEFAULT_STATUS_WAIT_MS).
 */
export async function statusOf(services: Services, account: Account, executionId: string, waitMillis = 0) {
  const execution = await awaitExecutionEnd(services, account, executionId, waitMillis);
  return executionStatus(execution, {
    queuePosition: await queuePosition(services, execution),
    maxInflight: services.config.maxConcurrentExecutions,
  });
}

/**
 * `GET /v1/execution/{id}/results`: status, and the requested page once the run completed (an
 * unfinished run is waited for as its status is).
 */
export async function executionResults(
  services: Services,
  account: Account,
  executionId: string,
  query: ResultsQuery & { max_wait_ms?: number },
  location: ResultsLocation,
) {
  const execution = await awaitExecutionEnd(services, account, executionId, query.max_wait_ms ?? 0);
  return resultsOf(services, execution, query, location);
}

/** `GET /v1/query/{id}/results`: the latest completed execution's result, without running anything. */
export async function latestQueryResults(
  services: Services,
  account: Account,
  queryId: number,
  query: ResultsQuery,
  location: ResultsLocation,
) {
  const execution = await latestCompletedExecution(services, account, queryId, query.params);
  return resultsOf(services, execution, query, location);
}

/**
 * `GET /v1/endpoints/{handle}/{slug}/results`: a custom endpoint's result, the current version of
 * the materialized view it serves (refreshed by the view's schedule), without running anything.
 * A private view answers its owner only; for anyone else it does not exist.
 */
export async function endpointResults(
  services: Services,
  account: Account,
  endpoint: { handle: string; slug: string },
  query: EndpointResultsQuery,
  location: ResultsLocation,
) {
  const { handle, slug } = endpoint;
  const fullName = endpointViewName(handle, slug);
  if (!fullName) {
    throw new BadRequestError(
      `Custom endpoint slug "${slug}" does not name a materialized view: use the view's name (result_daily_volume, or daily_volume or daily-volume for it): lower-case letters, digits, underscores or hyphens.`,
    );
  }
  const view = await services.materializedViews.get(fullName);
  if (!view || !isReadableBy(view, account.accountId)) {
    // Only the caller's own handle is a name the caller could create the view under.
    const yours = handle.toLowerCase() === account.handle.toLowerCase();
    throw new NotFoundError(
      yours
        ? `Custom endpoint ${handle}/${slug} not found: it serves the materialized view ${fullName}, which does not exist. Create it with POST /v1/materialized-views {"name": "${fullName.split('.')[2]}", "query_id": …}.`
        : `Custom endpoint ${handle}/${slug} not found: it serves the materialized view ${fullName}, which does not exist or is private to ${handle.toLowerCase()}; only that account can create it or make it public.`,
    );
  }
  const execution = view.currentExecutionId
    ? await services.executions.get(view.currentExecutionId)
    : undefined;
  if (execution?.state !== 'QUERY_STATE_COMPLETED') {
    throw new NotFoundError(
      `Custom endpoint ${handle}/${slug} has no result yet: its view ${fullName} has not completed a refresh (POST /v1/materialized-views/${fullName}/refresh).`,
    );
  }
  // The handle and slug the SDK repeats in the query string are the endpoint's, not result options.
  const { handle: _handle, slug: _slug, ...options } = query;
  return resultsOf(services, execution, options, location);
}

/**
 * The query's newest completed run; with `parameterValues` (`params.<name>=` in the request) it must
 * have run with those values, or the caller is told to run it so. Values no run could take (an
 * unknown name, a value of the wrong type) are refused first, as execute refuses them.
 */
export async function latestCompletedExecution(
  services: Services,
  account: Account,
  queryId: number,
  parameterValues: Record<string, string> = {},
): Promise<Execution> {
  const saved = await readableQuery(services.queries, account, queryId);
  checkParameterValues(saved.parameters, parameterValues);
  const execution = saved.latestCompletedExecutionId
    ? await services.executions.get(saved.latestCompletedExecutionId)
    : undefined;
  if (execution?.state !== 'QUERY_STATE_COMPLETED') {
    throw new NotFoundError(
      // Read over REST and by MCP tools (a chart drawn from the latest result): name both ways.
      `Query ${queryId} has no completed execution yet; run it with POST /v1/query/${queryId}/execute (over MCP: executeQueryById, then getExecutionResults until it completes).`,
    );
  }
  if (!usedParameterValues(execution.parameters ?? {}, parameterValues)) {
    const wanted = Object.entries(parameterValues).map(([key, value]) => `${key}=${value}`);
    throw new NotFoundError(
      `The latest completed execution of query ${queryId} (${execution.executionId}) ran with other parameter values than ${wanted.join(', ')}; run it with those values first (POST /v1/query/${queryId}/execute with query_parameters).`,
    );
  }
  return execution;
}

/** A completed execution's page, cut to the JSON byte budget, and where the next page starts. */
export interface ResultRead {
  page: ResultPage;
  nextOffset?: number;
}

/**
 * Reads one page of a completed execution's result (both the REST results and MCP
 * getExecutionResults): at most MAX_PAGE_ROWS rows and MAX_PAGE_BYTES of JSON.
 */
export async function readResult(services: Services, request: ResultPageRequest): Promise<ResultRead> {
  const bounded = { ...request, limit: Math.min(request.limit, MAX_PAGE_ROWS) };
  const page = fitToByteBudget(await services.results.readPage(bounded));
  return { page, nextOffset: nextOffsetOf(bounded, page) };
}

async function resultsOf(
  services: Services,
  execution: Execution,
  query: ResultsQuery,
  location: ResultsLocation,
) {
  const status = executionStatus(execution, { maxInflight: services.config.maxConcurrentExecutions });
  if (execution.state !== 'QUERY_STATE_COMPLETED') {
    const { result_metadata: _none, ...rest } = status;
    return rest;
  }
  const { page, nextOffset } = await readResult(services, pageRequest(execution.executionId, query));
  return {
    ...status,
    result: {
      rows: page.rows,
      metadata: {
        ...resultMetadata(execution),
        column_names: page.columns.map((c) => c.name),
        column_types: page.columns.map((c) => duneSqlTypeName(c.type)),
        row_count: page.rows.length,
        // result_set_bytes stays the whole result's size, as in the status (one meaning per name).
        total_row_count: page.totalRowCount,
        datapoint_count: page.rows.length * page.columns.length,
      },
    },
    ...(nextOffset !== undefined
      ? { next_offset: nextOffset, next_uri: nextUri(location, query, nextOffset) }
      : {}),
  };
}

/** CSV of one page, with the paging links for the `X-Service-Next-*` headers. */
export async function executionResultsCsv(
  services: Services,
  execution: Execution,
  query: ResultsQuery,
  location: ResultsLocation,
) {
  if (execution.state !== 'QUERY_STATE_COMPLETED') {
    throw new ConflictError(
      `Execution ${execution.executionId} is ${execution.state}; CSV results exist once it is QUERY_STATE_COMPLETED.`,
    );
  }
  const request = pageRequest(execution.executionId, query);
  const csv = await services.results.readCsv(request);
  const nextOffset = nextOffsetOf(request, {
    rows: { length: csv.rowCount },
    totalRowCount: csv.totalRowCount,
  });
  return {
    csv: csv.csv,
    nextOffset,
    nextUri: nextOffset !== undefined ? nextUri(location, query, nextOffset) : undefined,
  };
}

/** The REST query's page request (the text forms of columns, filters and sort_by parsed). */
function pageRequest(executionId: string, query: ResultsQuery): ResultPageRequest {
  return {
    executionId,
    limit: Math.min(query.limit ?? MAX_PAGE_ROWS, MAX_PAGE_ROWS),
    offset: query.offset ?? 0,
    ...(query.columns !== undefined ? { columns: parseColumns(query.columns) } : {}),
    ...(query.filters !== undefined ? { filters: parseResultFilter(query.filters) } : {}),
    ...(query.sort_by !== undefined ? { sortBy: parseSortBy(query.sort_by) } : {}),
    ...(query.sample_count !== undefined ? { sampleCount: query.sample_count } : {}),
  };
}

/** Where the next page starts while rows remain (also after a page cut by the row or byte cap). */
function nextOffsetOf(
  request: ResultPageRequest,
  page: { rows: { length: number }; totalRowCount: number },
): number | undefined {
  if (request.sampleCount !== undefined) return undefined;
  const next = request.offset + page.rows.length;
  if (next >= page.totalRowCount || page.rows.length === 0) return undefined;
  return next;
}

function fitToByteBudget(page: ResultPage): ResultPage {
  // Most pages are far below the budget: a bound of their JSON length, computed without writing
  // it, spares writing every row once more before the response writes them all.
  let bound = 0;
  for (const row of page.rows) {
    bound += jsonLengthBound(row) + 1;
    if (bound > MAX_PAGE_BYTES) break;
  }
  if (bound <= MAX_PAGE_BYTES) return page;
  let bytes = 0;
  for (let i = 0; i < page.rows.length; i++) {
    bytes += JSON.stringify(page.rows[i]).length + 1;
    if (bytes > MAX_PAGE_BYTES) return { ...page, rows: page.rows.slice(0, Math.max(1, i)) };
  }
  return page;
}

/**
 * At least the length of `JSON.stringify(value)`: a string character is at most 6 characters
 * (`\u0000`), a number at most 24 (`-1.7976931348623157e+308`).
 */
function jsonLengthBound(value: ResultValue): number {
  if (value === null || typeof value === 'boolean') return 5;
  if (typeof value === 'number') return 24;
  if (typeof value === 'string') return 6 * value.length + 2;
  let length = 2;
  if (Array.isArray(value)) {
    for (const item of value) length += jsonLengthBound(item) + 1;
    return length;
  }
  for (const key in value) length += 6 * key.length + 3 + jsonLengthBound(value[key]!) + 1;
  return length;
}

function nextUri(location: ResultsLocation, query: ResultsQuery, nextOffset: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    // The next page is of a completed execution: nothing to wait for.
    if (value === undefined || key === 'offset' || key === 'max_wait_ms') continue;
    if (key === 'params') {
      for (const [name, text] of Object.entries(value as Record<string, string>)) {
        params.set(`${PARAMS_PREFIX}${name}`, text);
      }
    } else params.set(key, String(value));
  }
  params.set('offset', String(nextOffset));
  return `${location.baseUrl}${location.path}?${params.toString()}`;
}
