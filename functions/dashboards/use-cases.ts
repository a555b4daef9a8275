import type { Account } from '../core/accounts';
import {
  type Dashboard,
  type DashboardChanges,
  generateShareToken,
  layoutWidgets,
  slugify,
  type WidgetPosition,
} from '../core/dashboards';
import { ForbiddenError, NotFoundError } from '../core/errors';
import type { Services } from '../services';
import { readableVisualization } from '../visualizations/use-cases';
import type { CreateDashboardBody, PositionInput, UpdateDashboardBody } from './schemas';

/** A dashboard and, when just issued, its share token (only its hash is stored). */
export interface DashboardWithToken {
  dashboard: Dashboard;
  shareToken?: string;
}

function toPosition(position: PositionInput | undefined): WidgetPosition | undefined {
  return position
    ? { row: position.row, col: position.col, sizeX: position.size_x, sizeY: position.size_y }
    : undefined;
}

/** Every visualization must exist and be readable by the caller. */
async function checkVisualizations(services: Services, account: Account, ids: number[]): Promise<void> {
  for (const id of new Set(ids)) await readableVisualization(services, account, id);
}

export async function createDashboard(
  services: Services,
  account: Account,
  body: CreateDashboardBody,
  now = new Date(),
): Promise<DashboardWithToken> {
  await checkVisualizations(services, account, body.visualization_ids);
  const { token, hash } = generateShareToken();
  const at = now.toISOString();
  const dashboard: Dashboard = {
    dashboardId: await services.dashboards.nextDashboardId(),
    accountId: account.accountId,
    ownerHandle: account.handle,
    name: body.name,
    slug: slugify(body.name),
    tags: [...new Set(body.tags)],
    isArchived: false,
    columnsPerRow: body.columns_per_row,
    ...layoutWidgets(
      body.text_widgets.map((t) => ({ text: t.text, position: toPosition(t.position) })),
      body.visualization_ids.map((visualizationId) => ({ visualizationId })),
      body.columns_per_row,
    ),
    shareTokenHash: hash,
    createdAt: at,
    updatedAt: at,
  };
  await services.dashboards.create(dashboard);
  return { dashboard, shareToken: token };
}

/** Dashboards are private to their owner's account (the page is shared through its link). */
export async function ownDashboard(services: Services, account: Account, dashboardId: number) {
  const dashboard = await services.dashboards.get(dashboardId);
  if (!dashboard || dashboard.accountId !== account.accountId) {
    throw new NotFoundError(`Dashboard ${dashboardId} not found.`);
  }
  return dashboard;
}

export async function updateDashboard(
  services: Services,
  account: Account,
  dashboardId: number,
  body: UpdateDashboardBody,
  now = new Date(),
): Promise<DashboardWithToken> {
  const current = await ownDashboard(services, account, dashboardId);
  if (current.isArchived) {
    throw new ForbiddenError(`Dashboard ${dashboardId} is archived and cannot be changed.`);
  }
  const changes: DashboardChanges = { name: body.name, slug: body.slug, columnsPerRow: body.columns_per_row };
  if (body.tags) changes.tags = [...new Set(body.tags)];
  const columnsPerRow = body.columns_per_row ?? current.columnsPerRow;
  const replacing =
    body.visualization_ids !== undefined ||
    body.visualization_widgets !== undefined ||
    body.text_widgets !== undefined;
  if (replacing) {
    const visualizations =
      body.visualization_widgets?.map((w) => ({
        visualizationId: w.visualization_id,
        position: toPosition(w.position),
      })) ?? (body.visualization_ids ?? []).map((visualizationId) => ({ visualizationId }));
    await checkVisualizations(
      services,
      account,
      visualizations.map((v) => v.visualizationId),
    );
    Object.assign(
      changes,
      layoutWidgets(
        (body.text_widgets ?? []).map((t) => ({ text: t.text, position: toPosition(t.position) })),
        visualizations,
        columnsPerRow,
      ),
    );
  } else if (body.columns_per_row !== undefined) {
    Object.assign(
      changes,
      layoutWidgets(
        current.textWidgets.map((t) => ({ text: t.text })),
        current.visualizationWidgets.map((v) => ({ visualizationId: v.visualizationId })),
        columnsPerRow,
      ),
    );
  }
  let shareToken: string | undefined;
  if (body.rotate_share_token) {
    const issued = generateShareToken();
    shareToken = issued.token;
    changes.shareTokenHash = issued.hash;
  }
  const dashboard = await services.dashboards.update(dashboardId, changes, now.toISOString());
  return { dashboard, ...(shareToken ? { shareToken } : {}) };
}

export async function archiveDashboard(
  services: Services,
  account: Account,
  dashboardId: number,
  now = new Date(),
): Promise<Dashboard> {
  await ownDashboard(services, account, dashboardId);
  return services.dashboards.update(dashboardId, { isArchived: true }, now.toISOString());
}
