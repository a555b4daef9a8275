import type { z } from 'zod';
import type { Account } from '../core/accounts';
import { nextRuns, validateRefreshSchedule } from '../core/cron';
import type { PerformanceTier } from '../core/engine';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import { type MaterializedView, materializedViewFullName } from '../core/materialized-views';
import { duneSqlTypeName } from '../core/sql-types';
import { type ExecutionRequest, submitExecution } from '../executions/use-cases';
import { assertRunnable, ownedQuery } from '../queries/use-cases';
import type { Services } from '../services';
import type { upsertMaterializedViewBody } from './schemas';

/**
 * Creates the view for a query, or updates the one that query already has, and refreshes it.
 * The name cannot move to another query (409) and cannot change once created.
 */
export async function upsertMaterializedView(
  services: Services,
  account: Account,
  body: z.output<typeof upsertMaterializedViewBody>,
  now = new Date(),
) {
  const query = await ownedQuery(services.queries, account, body.query_id);
  assertRunnable(query);
  if (query.parameters.length > 0) {
    throw new BadRequestError(
      `Query ${query.queryId} has parameters (${query.parameters.map((p) => p.key).join(', ')}); a materialized view needs a query without parameters.`,
    );
  }
  if (body.cron_expression) validateRefreshSchedule(body.cron_expression, now);
  const fullName = materializedViewFullName(account.handle, body.name);
  const existing = await services.materializedViews.get(fullName);
  const ofQuery = (await services.materializedViews.listByAccount(account.accountId)).find(
    (v) => v.queryId === query.queryId,
  );
  if (existing && existing.queryId !== query.queryId) {
    throw new ConflictError(
      `${fullName} already materializes query ${existing.queryId}; choose another name.`,
    );
  }
  if (!existing && ofQuery) {
    throw new ConflictError(
      `Query ${query.queryId} is already materialized as ${ofQuery.fullName}; names cannot change after creation.`,
    );
  }
  const schedule = body.cron_expression
    ? {
        cronExpression: body.cron_expression,
        performance: body.performance,
        ...(body.expires_at ? { expiresAt: body.expires_at } : {}),
      }
    : undefined;
  const at = now.toISOString();
  if (existing) {
    await services.materializedViews.update(
      fullName,
      { isPrivate: body.is_private ?? existing.isPrivate, performance: body.performance, schedule },
      at,
    );
  } else {
    await services.materializedViews.create({
      fullName,
      name: body.name,
      accountId: account.accountId,
      ownerHandle: account.handle,
      queryId: query.queryId,
      isPrivate: body.is_private ?? query.isPrivate,
      performance: body.performance,
      ...(schedule ? { schedule } : {}),
      lastExecutionIds: [],
      createdAt: at,
      updatedAt: at,
    });
  }
  const saved = await services.materializedViews.get(fullName);
  if (saved) await services.schedules.sync(saved);
  const { execution_id } = await refresh(services, account, fullName, body.performance);
  return { name: fullName, execution_id };
}

/** A view the caller may read: their own or a public one; another account's private view is 404. */
export async function readableView(
  services: Services,
  account: Account,
  fullName: string,
): Promise<MaterializedView> {
  const view = await services.materializedViews.get(fullName);
  if (!view || (view.isPrivate && view.accountId !== account.accountId)) {
    throw new NotFoundError(`Materialized view ${fullName} not found.`);
  }
  return view;
}

async function ownedView(services: Services, account: Account, fullName: string): Promise<MaterializedView> {
  const view = await readableView(services, account, fullName);
  if (view.accountId !== account.accountId) {
    throw new ForbiddenError(
      `Materialized view ${fullName} belongs to another account; only its owner can change it.`,
    );
  }
  return view;
}

/**
 * Runs the view's query; when it completes, its result becomes the view's new version in one
 * conditional write. Until then readers see the old version; a failed refresh leaves it in place.
 */
export async function refresh(services: Services, account: Account, fullName: string, tier: PerformanceTier) {
  const submitted = await submitExecution(
    services,
    account,
    await refreshRequest(services, account, fullName, tier),
  );
  await services.materializedViews.recordRefresh(fullName, submitted.executionId);
  return { sql_id: fullName, execution_id: submitted.executionId };
}

/** The execution that refreshes a view: the owner's unarchived query, its result marked for the view. */
export async function refreshRequest(
  services: Services,
  account: Account,
  fullName: string,
  tier: PerformanceTier,
): Promise<ExecutionRequest> {
  const view = await ownedView(services, account, fullName);
  const query = await ownedQuery(services.queries, account, view.queryId);
  assertRunnable(query);
  return { queryId: query.queryId, sql: query.querySql, tier, materializedViewName: fullName };
}

export async function deleteMaterializedView(services: Services, account: Account, fullName: string) {
  await ownedView(services, account, fullName);
  await services.schedules.remove(fullName);
  await services.materializedViews.delete(fullName);
  return { message: 'ok' };
}

export async function listMaterializedViews(
  services: Services,
  account: Account,
  limit: number,
  offset: number,
) {
  const views = await services.materializedViews.listByAccount(account.accountId);
  const page = views.slice(offset, offset + limit);
  const next = offset + limit;
  return {
    materialized_views: page.map((view) => materializedViewResponse(view)),
    total: views.length,
    ...(next < views.length ? { next_offset: next } : {}),
  };
}

export function materializedViewResponse(view: MaterializedView, now = new Date()) {
  return {
    id: view.fullName,
    sql_id: view.fullName,
    name: view.name,
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
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    ...(view.schedule
      ? {
          schedule: {
            cron_expression: view.schedule.cronExpression,
            performance: view.schedule.performance,
            next_execution_time: nextRuns(view.schedule.cronExpression, 1, now)[0]?.toISOString() ?? null,
            ...(view.schedule.expiresAt ? { expires_at: view.schedule.expiresAt } : {}),
          },
        }
      : {}),
  };
}
