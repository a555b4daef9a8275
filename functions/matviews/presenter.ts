import { z } from 'zod';
import { PERFORMANCE_TIERS } from '../core/engine';
import type { MaterializedView } from '../core/materialized-views';
import { nextScheduledRefresh } from '../core/refresh-schedules';
import { duneSqlTypeName } from '../core/sql-types';
import type { DeletedView, StartedRefresh } from './use-cases';

// REST answers (Dune's field names). The schemas document them in the OpenAPI document and type the
// functions that build them.

export const materializedViewResponse = z.object({
  id: z.string().describe('The full name, mv.<owner>.result_<name>.'),
  sql_id: z.string().describe('The name SQL reads it by (the full name).'),
  name: z
    .string()
    .describe(
      "The full name, as the upsert answers it (not in Dune's answer, which has id and sql_id only).",
    ),
  owner: z.string(),
  query_id: z.number().int(),
  is_private: z.boolean(),
  performance: z.enum(PERFORMANCE_TIERS),
  last_execution_ids: z.array(z.string()).describe('Newest refresh executions first (at most 10).'),
  current_execution_id: z.string().nullable().describe('The refresh whose result readers see.'),
  table_size_bytes: z.number().int(),
  row_count: z.number().int().nullable(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  last_refreshed_at: z.string().nullable(),
  endpoint_path: z
    .string()
    .describe(
      'Where its current version is served as a custom endpoint: /v1/endpoints/<owner>/<name>/results.',
    ),
  created_at: z.string(),
  updated_at: z.string(),
  dependents: z
    .array(z.string())
    .optional()
    .describe(
      'Full names of the views (that you can see) whose query reads this one: deleting it makes their refreshes fail. On GET of one view only.',
    ),
  schedule: z
    .object({
      cron_expression: z.string(),
      performance: z.enum(PERFORMANCE_TIERS),
      next_execution_time: z.string().nullable(),
      expires_at: z.string().optional(),
      webhook_url: z.string().optional().describe("Shown to the view's owner only (it may hold a token)."),
      last_error: z
        .object({
          at: z.string(),
          message: z.string(),
          pipeline_execution_id: z
            .string()
            .optional()
            .describe('The failed run recorded for it (its webhook, if any, was told).'),
        })
        .optional()
        .describe(
          "Why the last scheduled refresh could not start (its view's owner only); gone once one starts again.",
        ),
    })
    .optional(),
});

export function materializedViewResponseOf(
  view: MaterializedView,
  /** The account asking: the webhook URL is the owner's business only. */
  viewerAccountId: string,
  now = new Date(),
  /** The views that read it (GET of one view). */
  dependents?: string[],
): z.output<typeof materializedViewResponse> {
  const owner = view.accountId === viewerAccountId;
  const webhook = owner ? view.schedule?.webhook : undefined;
  const lastError = owner ? view.scheduleError : undefined;
  return {
    id: view.fullName,
    sql_id: view.fullName,
    // The full name, as the upsert's answer: a client that reads `name` back gets what it can
    // GET, refresh and SELECT from (the short name is the last part of it).
    name: view.fullName,
    owner: view.ownerHandle,
    query_id: view.queryId,
    is_private: view.isPrivate,
    performance: view.performance,
    last_execution_ids: view.lastExecutionIds,
    current_execution_id: view.currentExecutionId ?? null,
    table_size_bytes: view.tableSizeBytes ?? 0,
    row_count: view.rowCount ?? null,
    columns: (view.columns ?? []).map((c) => ({ name: c.name, type: duneSqlTypeName(c.type) })),
    last_refreshed_at: view.lastRefreshedAt ?? null,
    endpoint_path: endpointPathOf(view),
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    ...(dependents ? { dependents } : {}),
    ...(view.schedule
      ? {
          schedule: {
            cron_expression: view.schedule.cronExpression,
            performance: view.schedule.performance,
            next_execution_time: nextScheduledRefresh(view.schedule, now)?.toISOString() ?? null,
            ...(view.schedule.expiresAt ? { expires_at: view.schedule.expiresAt } : {}),
            ...(webhook ? { webhook_url: webhook.url } : {}),
            ...(lastError
              ? {
                  last_error: {
                    at: lastError.at,
                    message: lastError.message,
                    ...(lastError.pipelineExecutionId
                      ? { pipeline_execution_id: lastError.pipelineExecutionId }
                      : {}),
                  },
                }
              : {}),
          },
        }
      : {}),
  };
}

/** The custom endpoint serving the view (functions/core/materialized-views.ts, endpointViewName). */
function endpointPathOf(view: MaterializedView): string {
  return `/v1/endpoints/${view.ownerHandle}/${view.name.slice('result_'.length)}/results`;
}

export const materializedViewListResponse = z.object({
  materialized_views: z.array(materializedViewResponse),
  total: z.number().int(),
  next_offset: z.number().int().optional().describe('Where the next page starts; absent on the last page.'),
});

export function materializedViewListResponseOf(
  page: { views: MaterializedView[]; total: number },
  limit: number,
  offset: number,
): z.output<typeof materializedViewListResponse> {
  const next = offset + limit;
  return {
    materialized_views: page.views.map((view) => materializedViewResponseOf(view, view.accountId)),
    total: page.total,
    ...(next < page.total ? { next_offset: next } : {}),
  };
}

export const upsertedMaterializedViewResponse = z.object({
  name: z.string().describe('The full name, mv.<owner>.result_<name>.'),
  execution_id: z.string().describe('The refresh that computes its first (or next) version.'),
});

export const refreshResponse = z.object({
  sql_id: z.string(),
  execution_id: z.string().describe('The refresh execution; its status is at /v1/execution/{id}/status.'),
});

export const deletedResponse = z.object({
  message: z.literal('ok'),
  dependents: z
    .array(z.string())
    .describe(
      'Full names of the views (that you can see) whose query reads the deleted view: they fail to refresh until it is recreated.',
    ),
  warning: z.string().optional().describe('Set when dependents is not empty: what happens to them.'),
});

export function deletedResponseOf(deleted: DeletedView): z.output<typeof deletedResponse> {
  const { fullName } = deleted;
  return {
    message: 'ok',
    dependents: deleted.dependents,
    ...(deleted.dependents.length
      ? {
          warning: `${deleted.dependents.length === 1 ? 'This view reads' : 'These views read'} ${fullName}: ${deleted.dependents.join(', ')}. Their refreshes (and pipelines that include them) fail until ${fullName} is created again with POST /v1/materialized-views.`,
        }
      : {}),
  };
}

export function upsertedResponseOf(
  started: StartedRefresh,
): z.output<typeof upsertedMaterializedViewResponse> {
  return { name: started.fullName, execution_id: started.executionId };
}

export function refreshResponseOf(started: StartedRefresh): z.output<typeof refreshResponse> {
  return { sql_id: started.fullName, execution_id: started.executionId };
}
