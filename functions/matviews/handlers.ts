import { routeHandler } from '../http/route-handler';
import { webhookTargetOf } from '../http/webhook-target';
import {
  deletedResponse,
  deletedResponseOf,
  materializedViewListResponse,
  materializedViewListResponseOf,
  materializedViewResponse,
  materializedViewResponseOf,
  refreshResponse,
  refreshResponseOf,
  upsertedMaterializedViewResponse,
  upsertedResponseOf,
} from './presenter';
import { fullNamePath, listMaterializedViewsQuery, refreshBody, upsertMaterializedViewBody } from './schemas';
import * as matviews from './use-cases';

/** Creating or refreshing runs the view's query: credits (402 past the limit) and state (409). */
const REFRESH_ERRORS = [402, 409] as const;

export const upsertMaterializedView = routeHandler(
  {
    idempotent: true,
    body: upsertMaterializedViewBody,
    docs: {
      summary: "Create or update a query's materialized view, and refresh it",
      response: upsertedMaterializedViewResponse,
      errors: REFRESH_ERRORS,
    },
  },
  async ({ services, account, body, event }) =>
    upsertedResponseOf(
      await matviews.upsertMaterializedView(services, account, {
        ...body,
        webhook: webhookTargetOf(body.webhookUrl, event),
      }),
    ),
);

export const listMaterializedViews = routeHandler(
  {
    query: listMaterializedViewsQuery,
    docs: { summary: "The caller's materialized views", response: materializedViewListResponse },
  },
  async ({ services, account, query }) =>
    materializedViewListResponseOf(
      await matviews.listMaterializedViews(services, account, query.limit, query.offset),
      query.limit,
      query.offset,
    ),
);

export const getMaterializedView = routeHandler(
  {
    path: fullNamePath,
    docs: { summary: 'Read a materialized view', response: materializedViewResponse },
  },
  async ({ services, account, path }) => {
    const view = await matviews.readableView(services, account, path.full_name);
    return materializedViewResponseOf(
      view,
      account.accountId,
      new Date(),
      await matviews.viewDependents(services, account, view),
    );
  },
);

export const refreshMaterializedView = routeHandler(
  {
    idempotent: true,
    path: fullNamePath,
    body: refreshBody,
    docs: { summary: 'Refresh a materialized view now', response: refreshResponse, errors: REFRESH_ERRORS },
  },
  async ({ services, account, path, body }) =>
    refreshResponseOf(await matviews.refresh(services, account, path.full_name, body.performance)),
);

export const deleteMaterializedView = routeHandler(
  { path: fullNamePath, docs: { summary: 'Delete a materialized view', response: deletedResponse } },
  async ({ services, account, path }) =>
    deletedResponseOf(await matviews.deleteMaterializedView(services, account, path.full_name)),
);
