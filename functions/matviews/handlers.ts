import { routeHandler } from '../http/route-handler';
import { fullNamePath, listMaterializedViewsQuery, refreshBody, upsertMaterializedViewBody } from './schemas';
import * as matviews from './use-cases';

export const upsertMaterializedView = routeHandler(
  { body: upsertMaterializedViewBody },
  ({ services, account, body }) => matviews.upsertMaterializedView(services, account, body),
);

export const listMaterializedViews = routeHandler(
  { query: listMaterializedViewsQuery },
  ({ services, account, query }) =>
    matviews.listMaterializedViews(services, account, query.limit, query.offset),
);

export const getMaterializedView = routeHandler({ path: fullNamePath }, async ({ services, account, path }) =>
  matviews.materializedViewResponse(await matviews.readableView(services, account, path.full_name)),
);

export const refreshMaterializedView = routeHandler(
  { path: fullNamePath, body: refreshBody },
  ({ services, account, path, body }) =>
    matviews.refresh(services, account, path.full_name, body.performance),
);

export const deleteMaterializedView = routeHandler({ path: fullNamePath }, ({ services, account, path }) =>
  matviews.deleteMaterializedView(services, account, path.full_name),
);
