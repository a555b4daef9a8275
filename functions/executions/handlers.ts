import type { APIGatewayProxyEvent } from 'aws-lambda';
import { requestBaseUrl } from '../http/request-url';
import { HttpResponse } from '../http/responses';
import { routeHandler } from '../http/route-handler';
import { queryIdPath } from '../queries/schemas';
import {
  cancelExecutionResponse,
  executionResultsResponse,
  executionStatusResponse,
  submittedExecutionOf,
  submittedExecutionResponse,
  usageResponse,
  usageResponseOf,
} from './presenter';
import * as results from './results';
import {
  endpointPath,
  endpointResultsQuery,
  executeQueryBody,
  executeQueryQuery,
  executeSqlBody,
  executionIdPath,
  executionResultsQuery,
  resultsQuery,
  statusQuery,
  usageBody,
} from './schemas';
import { usageOf } from './usage';
import * as executions from './use-cases';

/** Running costs credits: past the period's limit a run is refused with 402. */
const RUN_ERRORS = [402, 403] as const;

export const executeQuery = routeHandler(
  {
    idempotent: true,
    path: queryIdPath,
    body: executeQueryBody,
    query: executeQueryQuery,
    docs: { summary: 'Run a saved query', response: submittedExecutionResponse, errors: RUN_ERRORS },
  },
  async ({ services, account, path, body, query }) =>
    submittedExecutionOf(
      await executions.executeSavedQuery(services, account, path.query_id, {
        tier: query.performance === 'large' ? 'large' : body.performance,
        parameters: { ...query.query_parameters, ...query.params, ...body.query_parameters },
      }),
    ),
);

export const executeSql = routeHandler(
  {
    idempotent: true,
    body: executeSqlBody,
    docs: { summary: 'Run ad-hoc SQL', response: submittedExecutionResponse, errors: RUN_ERRORS },
  },
  async ({ services, account, body }) =>
    submittedExecutionOf(await executions.executeSql(services, account, body.sql, body.performance)),
);

export const getExecutionStatus = routeHandler(
  {
    path: executionIdPath,
    query: statusQuery,
    docs: {
      summary: "An execution's state; an unfinished one is answered when it ends, or after max_wait_ms",
      response: executionStatusResponse,
    },
  },
  ({ services, account, path, query }) =>
    results.statusOf(services, account, path.execution_id, query.max_wait_ms),
);

export const cancelExecution = routeHandler(
  {
    // Dune counts a cancel among the reads: stopping a run is never what a budget should block.
    rateClass: 'read',
    path: executionIdPath,
    docs: {
      summary: 'Cancel a pending or running execution',
      response: cancelExecutionResponse,
      errors: [409],
    },
  },
  ({ services, account, path }) => executions.cancelExecution(services, account, path.execution_id),
);

export const getExecutionResults = routeHandler(
  {
    path: executionIdPath,
    query: executionResultsQuery,
    docs: {
      summary:
        "A page of an execution's result; an unfinished one is answered when it ends, or after max_wait_ms",
      response: executionResultsResponse,
    },
  },
  ({ services, account, path, query, event }) =>
    results.executionResults(services, account, path.execution_id, query, locationOf(event)),
);

const CSV_DOCS = { produces: 'text/csv', errors: [409] } as const;

export const getExecutionResultsCsv = routeHandler(
  {
    path: executionIdPath,
    query: executionResultsQuery,
    docs: {
      summary: "A page of an execution's result as CSV; an unfinished one is waited for up to max_wait_ms",
      ...CSV_DOCS,
    },
  },
  async ({ services, account, path, query, event }) =>
    csvResponse(
      await results.executionResultsCsv(
        services,
        await executions.awaitExecutionEnd(services, account, path.execution_id, query.max_wait_ms),
        query,
        locationOf(event),
      ),
    ),
);

export const getQueryResults = routeHandler(
  {
    path: queryIdPath,
    query: resultsQuery,
    docs: { summary: "A page of a query's latest result", response: executionResultsResponse },
  },
  ({ services, account, path, query, event }) =>
    results.latestQueryResults(services, account, path.query_id, query, locationOf(event)),
);

export const getQueryResultsCsv = routeHandler(
  {
    path: queryIdPath,
    query: resultsQuery,
    docs: { summary: "A page of a query's latest result as CSV", ...CSV_DOCS },
  },
  async ({ services, account, path, query, event }) =>
    csvResponse(
      await results.executionResultsCsv(
        services,
        await results.latestCompletedExecution(services, account, path.query_id, query.params),
        query,
        locationOf(event),
      ),
    ),
);

export const getEndpointResults = routeHandler(
  {
    path: endpointPath,
    query: endpointResultsQuery,
    docs: {
      summary: "A page of a custom endpoint's result: the current version of the materialized view it serves",
      response: executionResultsResponse,
    },
  },
  ({ services, account, path, query, event }) =>
    results.endpointResults(services, account, path, query, locationOf(event)),
);

/** Where this results endpoint lives, for `next_uri` links. */
function locationOf(event: APIGatewayProxyEvent): results.ResultsLocation {
  return { baseUrl: requestBaseUrl(event), path: event.path };
}

export const getUsage = routeHandler(
  {
    rateClass: 'read',
    body: usageBody,
    docs: { summary: 'Credits and storage used', response: usageResponse },
  },
  async ({ services, account, body }) => usageResponseOf(await usageOf(services, account, body)),
);

function csvResponse(page: { csv: string; nextOffset?: number; nextUri?: string }) {
  return new HttpResponse(200, page.csv, {
    'content-type': 'text/csv; charset=utf-8',
    'cache-control': 'no-store',
    ...pagingHeaders('x-service', page),
    // Dune's names too: its SDKs page CSV by these.
    ...pagingHeaders('x-dune', page),
  });
}

function pagingHeaders(prefix: string, page: { nextOffset?: number; nextUri?: string }) {
  return {
    ...(page.nextOffset !== undefined ? { [`${prefix}-next-offset`]: String(page.nextOffset) } : {}),
    ...(page.nextUri ? { [`${prefix}-next-uri`]: page.nextUri } : {}),
  };
}
