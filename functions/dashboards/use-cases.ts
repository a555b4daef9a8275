import type { Account } from '../core/accounts';
import {
  type Dashboard,
  type DashboardChanges,
  type DashboardEdit,
  generateShareToken,
  layoutWidgets,
  type NewDashboard,
  slugify,
} from '../core/dashboards';
import { BadRequestError, ForbiddenError, NotFoundError } from '../core/errors';
import type { Services } from '../services';
import { readableVisualization } from '../visualizations/use-cases';

/** A dashboard and, when just issued, its share token (only its hash is stored). */
export interface DashboardWithToken {
  dashboard: Dashboard;
  shareToken?: string;
}

/** A dashboard is one DynamoDB item (400 KB at most): its text widgets hold this much in all. */
const MAX_TOTAL_TEXT = 100_000;

function assertTextFits(widgets: readonly { text: string }[] | undefined): void {
  const total = (widgets ?? []).reduce((sum, w) => sum + w.text.length, 0);
  if (total > MAX_TOTAL_TEXT) {
    throw new BadRequestError(
      `Text widgets hold at most ${MAX_TOTAL_TEXT} characters in all; these hold ${total}.`,
    );
  }
}

/** Every visualization must exist and be readable by the caller. */
async function checkVisualizations(services: Services, account: Account, ids: number[]): Promise<void> {
  for (const id of new Set(ids)) await readableVisualization(services, account, id);
}

export async function createDashboard(
  services: Services,
  account: Account,
  spec: NewDashboard,
  now = new Date(),
): Promise<DashboardWithToken> {
  assertTextFits(spec.textWidgets);
  await checkVisualizations(services, account, spec.visualizationIds);
  const { token, hash } = generateShareToken();
  const at = now.toISOString();
  const dashboard: Dashboard = {
    dashboardId: await services.dashboards.nextDashboardId(),
    accountId: account.accountId,
    ownerHandle: account.handle,
    name: spec.name,
    slug: slugify(spec.name),
    tags: [...new Set(spec.tags)],
    isArchived: false,
    columnsPerRow: spec.columnsPerRow,
    ...layoutWidgets(
      spec.textWidgets,
      spec.visualizationIds.map((visualizationId) => ({ visualizationId })),
      spec.columnsPerRow,
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
  edit: DashboardEdit,
  now = new Date(),
): Promise<DashboardWithToken> {
  if (Object.values(edit).every((value) => value === undefined)) {
    throw new BadRequestError(
      'Nothing to change: send at least one of the name, slug, tags, visualizations, text widgets, columns per row, or a share-token rotation.',
    );
  }
  if (edit.visualizationIds && edit.visualizationWidgets) {
    throw new BadRequestError('Send the visualization ids or the visualization widgets, not both.');
  }
  assertTextFits(edit.textWidgets);
  const current = await ownDashboard(services, account, dashboardId);
  if (current.isArchived) {
    throw new ForbiddenError(`Dashboard ${dashboardId} is archived and cannot be changed.`);
  }
  const changes: DashboardChanges = { name: edit.name, slug: edit.slug, columnsPerRow: edit.columnsPerRow };
  if (edit.tags) changes.tags = [...new Set(edit.tags)];
  const columnsPerRow = edit.columnsPerRow ?? current.columnsPerRow;
  const replacing =
    edit.visualizationIds !== undefined ||
    edit.visualizationWidgets !== undefined ||
    edit.textWidgets !== undefined;
  if (replacing) {
    const visualizations =
      edit.visualizationWidgets ??
      (edit.visualizationIds ?? []).map((visualizationId) => ({ visualizationId }));
    await checkVisualizations(
      services,
      account,
      visualizations.map((v) => v.visualizationId),
    );
    Object.assign(changes, layoutWidgets(edit.textWidgets ?? [], visualizations, columnsPerRow));
  } else if (edit.columnsPerRow !== undefined) {
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
  if (edit.rotateShareToken) {
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
