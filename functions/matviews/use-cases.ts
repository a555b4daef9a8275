import type { Account } from '../core/accounts';
import { validateRefreshSchedule } from '../core/cron';
import type { PerformanceTier } from '../core/engine';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import { normalizeTableName, type TableReference } from '../core/lineage';
import {
  isReadableBy,
  MATERIALIZED_VIEW_CATALOG,
  type MaterializedView,
  type MaterializedViewSpec,
  materializedViewFullName,
} from '../core/materialized-views';
import { placeholdersIn } from '../core/parameters';
import type { SavedQuery } from '../core/queries';
import { checkWebhook } from '../core/webhooks';
import { type ExecutionRequest, submitExecution } from '../executions/use-cases';
import { logger } from '../http/logger';
import { expandQueryViews, expandQueryViewsTraced } from '../queries/query-views';
import { assertRunnable, ownedQuery, readableQuery } from '../queries/use-cases';
import type { Services } from '../services';

/** A refresh that started: the view and the execution that computes its next version. */
export interface StartedRefresh {
  fullName: string;
  executionId: string;
}

/**
 * Creates the view for a query, or updates the one that query already has, and refreshes it.
 * The name cannot move to another query (409) and cannot change once created.
 */
export async function upsertMaterializedView(
  services: Services,
  account: Account,
  spec: MaterializedViewSpec,
  now = new Date(),
): Promise<StartedRefresh> {
  const query = await readableQuery(services.queries, account, spec.queryId);
  if (query.accountId !== account.accountId) {
    throw new ForbiddenError(
      `Query ${query.queryId} belongs to another account, and a materialized view needs a query you own (its refreshes run as yours): save its SQL as a query of your own with POST /v1/query, and materialize that.`,
    );
  }
  assertRunnable(query);
  assertWithoutParameters(query);
  if (spec.cronExpression !== undefined) validateRefreshSchedule(spec.cronExpression, now);
  if (spec.expiresAt && Date.parse(spec.expiresAt) <= now.getTime()) {
    throw new BadRequestError(
      `expires_at ${spec.expiresAt} is not in the future: give a later time, or leave it out for a schedule that never ends.`,
    );
  }
  if (spec.expiresAt && !spec.cronExpression) {
    throw new BadRequestError(
      'expires_at ends scheduled refreshes: give cron_expression too (without one the view refreshes only when asked, and nothing expires).',
    );
  }
  if (spec.webhook && !spec.cronExpression) {
    throw new BadRequestError(
      'webhook_url tells of scheduled refreshes: give cron_expression too (a refresh asked for by API returns its execution_id to poll).',
    );
  }
  const webhook = spec.webhook && checkWebhook(spec.webhook, services.config.webhooks);
  const fullName = materializedViewFullName(account.handle, spec.name);
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
  const at = now.toISOString();
  // The view as created when it does not exist yet (a schedule is added below).
  const created: MaterializedView = {
    fullName,
    name: spec.name,
    accountId: account.accountId,
    ownerHandle: account.handle,
    queryId: query.queryId,
    isPrivate: spec.isPrivate ?? query.isPrivate,
    performance: spec.tier,
    lastExecutionIds: [],
    createdAt: at,
    updatedAt: at,
  };
  if (spec.cronExpression !== undefined) {
    await assertNoLineageCycle(services, account, existing ?? created);
  }
  const schedule = spec.cronExpression
    ? {
        cronExpression: spec.cronExpression,
        performance: spec.tier,
        ...(spec.expiresAt ? { expiresAt: spec.expiresAt } : {}),
        ...(webhook ? { webhook } : {}),
      }
    : undefined;
  if (existing) {
    await services.materializedViews.update(
      fullName,
      { isPrivate: spec.isPrivate ?? existing.isPrivate, performance: spec.tier, schedule },
      at,
    );
  } else {
    await services.materializedViews.create({ ...created, ...(schedule ? { schedule } : {}) });
  }
  const saved = await services.materializedViews.get(fullName);
  if (saved) await services.schedules.sync(saved);
  const started = await refresh(services, account, fullName, spec.tier);
  // Why a scheduled refresh could not start is old news once the view was upserted and refreshed.
  if (saved?.scheduleError) await services.materializedViews.recordScheduleError(fullName, undefined);
  return started;
}

/**
 * A scheduled refresh runs as a pipeline of the view's lineage (functions/pipelines/lineage.ts),
 * which refuses a cycle: a view that reads itself through its owner's views would fail every
 * tick, so its schedule is refused now, naming the cycle. The owner's views are followed through
 * their queries' SQL (query views inlined, parameters read as NULL, as the lineage reads them);
 * another account's public view is read as it is and ends the walk.
 */
async function assertNoLineageCycle(services: Services, account: Account, root: MaterializedView) {
  const views = new Map(
    (await services.materializedViews.listByAccount(account.accountId)).map((v) => [
      v.fullName.toLowerCase(),
      v,
    ]),
  );
  views.set(root.fullName.toLowerCase(), root);
  const finished = new Set<string>();
  const path: string[] = [];
  const visit = async (view: MaterializedView): Promise<void> => {
    if (finished.has(view.fullName)) return;
    if (path.includes(view.fullName)) {
      const cycle = [...path.slice(path.indexOf(view.fullName)), view.fullName].join(' → ');
      throw new BadRequestError(
        `${root.fullName} cannot be scheduled: a scheduled refresh refreshes the views it reads first, and its lineage has a cycle: ${cycle}. A materialized view cannot depend on itself; refresh it with POST /v1/materialized-views/${root.fullName}/refresh, or change a query of the cycle.`,
      );
    }
    path.push(view.fullName);
    const query = await readableQuery(services.queries, account, view.queryId);
    const sql = query.querySql.replace(/\{\{[^}]*\}\}/g, 'NULL');
    let references: TableReference[];
    try {
      references = await services.sqlParser.tablesReadBy(
        await expandQueryViews(services, account, sql, query.queryId),
      );
    } catch (error) {
      // SQL the lineage cannot read fails every tick as well.
      if (!(error instanceof BadRequestError)) throw error;
      throw new BadRequestError(
        `${root.fullName} cannot be scheduled: a scheduled refresh reads its lineage first, and the query of ${view.fullName} cannot be read: ${error.message}`,
        { cause: error },
      );
    }
    for (const reference of references) {
      const read = views.get(normalizeTableName(reference));
      if (read && reference.catalog?.toLowerCase() === MATERIALIZED_VIEW_CATALOG) await visit(read);
    }
    path.pop();
    finished.add(view.fullName);
  };
  await visit(root);
}

/**
 * A view stores one result of its query: a query with parameters (declared, or a `{{name}}` in its
 * SQL) is refused, at the upsert and at every refresh, so no placeholder ever reaches the engine.
 */
function assertWithoutParameters(query: SavedQuery, fullName?: string): void {
  const keys = [...new Set([...query.parameters.map((p) => p.key), ...placeholdersIn(query.querySql)])];
  if (keys.length === 0) return;
  throw new BadRequestError(
    fullName
      ? `Query ${query.queryId} behind ${fullName} has parameters (${keys.join(', ')}), and a materialized view needs a query without parameters: remove them with PATCH /v1/query/${query.queryId}, or delete the view.`
      : `Query ${query.queryId} has parameters (${keys.join(', ')}); a materialized view needs a query without parameters.`,
  );
}

/** A view the caller may read: their own or a public one; another account's private view is 404. */
export async function readableView(
  services: Services,
  account: Account,
  fullName: string,
): Promise<MaterializedView> {
  const view = await services.materializedViews.get(fullName);
  if (!view || !isReadableBy(view, account.accountId)) {
    throw new NotFoundError(
      `Materialized view ${fullName} not found.${await otherCatalogHint(services, account, fullName)}`,
    );
  }
  return view;
}

/**
 * A view named in another catalog (Dune's `dune.<team>.result_<name>`) is `mv.<owner>.result_<name>`
 * here: the hint says so, and names the view when the caller may read it.
 */
async function otherCatalogHint(services: Services, account: Account, fullName: string): Promise<string> {
  const [catalog, owner, name] = fullName.split('.');
  if (!catalog || catalog === MATERIALIZED_VIEW_CATALOG || !owner || !name) return '';
  const here = materializedViewFullName(owner, name);
  const view = await services.materializedViews.get(here);
  return view && isReadableBy(view, account.accountId)
    ? ` Materialized views are named ${MATERIALIZED_VIEW_CATALOG}.<owner>.result_<name> here, not ${catalog}.<owner>.result_<name> as on Dune: did you mean ${here}?`
    : ` Materialized views are named ${MATERIALIZED_VIEW_CATALOG}.<owner>.result_<name> here, not ${catalog}.<owner>.result_<name> as on Dune (${here} is not one you can read either).`;
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
export async function refresh(
  services: Services,
  account: Account,
  fullName: string,
  tier: PerformanceTier,
): Promise<StartedRefresh> {
  const submitted = await submitExecution(
    services,
    account,
    await refreshRequest(services, account, fullName, tier),
  );
  await services.materializedViews.recordRefresh(fullName, submitted.executionId);
  return { fullName, executionId: submitted.executionId };
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
  assertWithoutParameters(query, fullName);
  const { sql, views } = await expandQueryViewsTraced(services, account, query.querySql, query.queryId);
  return {
    queryId: query.queryId,
    sql,
    ...(views.length ? { queryViews: views } : {}),
    tier,
    materializedViewName: fullName,
  };
}

/** SQL that may call a query view (`query_<id>`), whose SQL could read the view. */
const QUERY_VIEW_CALL_TEXT = /query_\d/;

/**
 * The full names of the views whose query reads `view` (directly, or through a query view it
 * calls), among those the caller may read: their refreshes fail while `view` does not exist.
 * A query that cannot be read or parsed any more reads nothing here.
 */
export async function viewDependents(
  services: Services,
  account: Account,
  view: MaterializedView,
): Promise<string[]> {
  const target = view.fullName.toLowerCase();
  const candidates = (await services.materializedViews.listReadableBy(account.accountId)).filter(
    (other) => other.fullName !== view.fullName && (other.accountId === view.accountId || !view.isPrivate),
  );
  const reads = await Promise.all(
    candidates.map(async (other) => {
      try {
        const query = await services.queries.get(other.queryId);
        if (!query) return false;
        // Parsed only when it can name the view, by name or through a query view it calls: a GET
        // of one view would otherwise parse every query behind every view the caller can see.
        const text = query.querySql.toLowerCase();
        if (!text.includes(view.name) && !QUERY_VIEW_CALL_TEXT.test(text)) return false;
        // Parameters only stand for values, never for tables (as the lineage reads them).
        let sql = query.querySql.replace(/\{\{[^}]*\}\}/g, 'NULL');
        const owner =
          other.accountId === account.accountId
            ? account
            : await services.accounts.getAccount(other.accountId);
        if (owner) sql = await expandQueryViews(services, owner, sql, query.queryId);
        const references = await services.sqlParser.tablesReadBy(sql);
        return references.some(
          (reference) =>
            reference.catalog?.toLowerCase() === MATERIALIZED_VIEW_CATALOG &&
            normalizeTableName(reference) === target,
        );
      } catch {
        return false;
      }
    }),
  );
  return candidates
    .filter((_, i) => reads[i])
    .map((other) => other.fullName)
    .sort();
}

/** What a delete answers: the views that read the deleted one (their refreshes fail until it is back). */
export interface DeletedView {
  fullName: string;
  dependents: string[];
}

export async function deleteMaterializedView(
  services: Services,
  account: Account,
  fullName: string,
): Promise<DeletedView> {
  const view = await ownedView(services, account, fullName);
  // Read before it is gone; the delete goes ahead (Dune's clients expect it to), and says who breaks.
  const dependents = await viewDependents(services, account, view);
  await services.schedules.remove(fullName);
  await services.materializedViews.delete(fullName);
  // The view is gone either way; versions left behind are only storage, so this never fails the delete.
  await services.viewVersions?.drop(fullName).catch((error: unknown) => {
    logger.warn('dropping view versions failed', { fullName, error: error as Error });
  });
  return { fullName: view.fullName, dependents };
}

/** One page of the caller's views, and how many there are. */
export async function listMaterializedViews(
  services: Services,
  account: Account,
  limit: number,
  offset: number,
): Promise<{ views: MaterializedView[]; total: number }> {
  const views = await services.materializedViews.listByAccount(account.accountId);
  return { views: views.slice(offset, offset + limit), total: views.length };
}
