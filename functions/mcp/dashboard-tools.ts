import { z } from 'zod';
import type { Account } from '../core/accounts';
import type { Dashboard, WidgetPosition } from '../core/dashboards';
import { dashboardUrl } from '../dashboards/presenter';
import { dashboardEditSchema, dashboardIdSchema, newDashboardSchema } from '../dashboards/schemas';
import { archiveDashboard, createDashboard, ownDashboard, updateDashboard } from '../dashboards/use-cases';
import type { Services } from '../services';
import type { ToolRegistrar } from './server';
import { annotate, guarded, nothingToChange, ok } from './tool-results';

interface Context {
  services: Services;
  account: Account;
  baseUrl: string;
}

// The arguments are the dashboard operations' own field schemas (functions/dashboards/schemas.ts):
// the limits live there once.
const newDashboard = newDashboardSchema.shape;
const dashboardEdit = dashboardEditSchema.shape;
const dashboardId = dashboardIdSchema.describe('The id returned by createDashboard.');
const VISUALIZATION_IDS_HELP = 'Visualization ids (from generateVisualization), laid out in this order.';
const TEXT_WIDGETS_HELP =
  'Text blocks shown full width above the charts; a Markdown subset: #/##/### headings, - lists, **bold**, `code`. A position ({row, col, sizeX, sizeY} on the 6-column grid) is optional.';
const COLUMNS_PER_ROW_HELP = 'Visualizations per row (1-3, default 2).';
const position = z.object({ row: z.number(), col: z.number(), sizeX: z.number(), sizeY: z.number() });
const dashboardShape = {
  dashboardId: z.number(),
  name: z.string(),
  slug: z.string(),
  owner: z.string(),
  isArchived: z.boolean(),
  tags: z.array(z.string()),
  columnsPerRow: z.number(),
  dashboardUrl: z
    .string()
    .describe(
      'The page in a browser; it carries its share key only when just issued (create, or rotateShareToken).',
    ),
  shareLinkIncluded: z.boolean(),
  visualizationWidgets: z.array(z.object({ widgetId: z.number(), visualizationId: z.number(), position })),
  textWidgets: z.array(z.object({ widgetId: z.number(), text: z.string(), position })),
  createdAt: z.string(),
  updatedAt: z.string(),
};

function positionOf(p: WidgetPosition) {
  return { row: p.row, col: p.col, sizeX: p.sizeX, sizeY: p.sizeY };
}

function dashboardOf(dashboard: Dashboard, baseUrl: string, shareToken?: string) {
  return {
    dashboardId: dashboard.dashboardId,
    name: dashboard.name,
    slug: dashboard.slug,
    owner: dashboard.ownerHandle,
    isArchived: dashboard.isArchived,
    tags: dashboard.tags,
    columnsPerRow: dashboard.columnsPerRow,
    dashboardUrl: dashboardUrl(baseUrl, dashboard.dashboardId, shareToken),
    shareLinkIncluded: shareToken !== undefined,
    visualizationWidgets: dashboard.visualizationWidgets.map((w) => ({
      widgetId: w.widgetId,
      visualizationId: w.visualizationId,
      position: positionOf(w.position),
    })),
    textWidgets: dashboard.textWidgets.map((w) => ({
      widgetId: w.widgetId,
      text: w.text,
      position: positionOf(w.position),
    })),
    createdAt: dashboard.createdAt,
    updatedAt: dashboard.updatedAt,
  };
}

function describeDashboard(d: ReturnType<typeof dashboardOf>): string {
  const link = d.isArchived
    ? 'Archived: its page answers 404 and it can no longer be changed.'
    : d.shareLinkIncluded
      ? `Open it in a browser (the link is the credential; share it with care): ${d.dashboardUrl}`
      : `Page: ${d.dashboardUrl} (the share key is shown only when issued; call updateDashboard with rotateShareToken: true for a new link).`;
  return `Dashboard ${d.dashboardId} "${d.name}"${d.isArchived ? ' (archived)' : ''}: ${d.visualizationWidgets.length} visualization(s), ${d.textWidgets.length} text widget(s), ${d.columnsPerRow} per row.\n${link}`;
}

export function registerDashboardTools(server: ToolRegistrar, { services, account, baseUrl }: Context): void {
  server.registerTool(
    'createDashboard',
    {
      title: 'Create a dashboard',
      description:
        "Creates a dashboard from visualizations (generateVisualization) and text blocks, laid out automatically: text full width on top, then the visualizations in a grid of columnsPerRow. Returns dashboardUrl, a page that opens in any browser without an API key and shows the charts rendered from each query's latest result; give that link to the user. The link's key is shown only now (or after updateDashboard with rotateShareToken).",
      inputSchema: {
        name: newDashboard.name,
        visualizationIds: newDashboard.visualizationIds.describe(VISUALIZATION_IDS_HELP),
        textWidgets: newDashboard.textWidgets.describe(TEXT_WIDGETS_HELP),
        columnsPerRow: newDashboard.columnsPerRow.describe(COLUMNS_PER_ROW_HELP),
        tags: newDashboard.tags,
      },
      outputSchema: dashboardShape,
      annotations: annotate('Create a dashboard'),
    },
    (args) =>
      guarded(async () => {
        const { dashboard, shareToken } = await createDashboard(services, account, args);
        const structured = dashboardOf(dashboard, baseUrl, shareToken);
        return ok(structured, describeDashboard(structured));
      }),
  );

  server.registerTool(
    'getDashboard',
    {
      title: 'Read a dashboard',
      description:
        'Returns one of your dashboards: name, widgets with their grid positions (6 columns wide), and its page URL. The share key is not stored in readable form, so the URL comes without it; call updateDashboard with rotateShareToken: true for a new shareable link.',
      inputSchema: { dashboardId },
      outputSchema: dashboardShape,
      annotations: annotate('Read a dashboard', { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const structured = dashboardOf(await ownDashboard(services, account, args.dashboardId), baseUrl);
        return ok(structured, describeDashboard(structured));
      }),
  );

  server.registerTool(
    'updateDashboard',
    {
      title: 'Update a dashboard',
      description:
        'Changes a dashboard. Widget arrays are all-or-nothing: sending visualizationIds or textWidgets replaces ALL widgets of both kinds (send the full lists you want); columnsPerRow alone lays the current widgets out again. rotateShareToken: true issues a new dashboardUrl and retires the old link.',
      inputSchema: {
        dashboardId,
        name: dashboardEdit.name,
        visualizationIds: dashboardEdit.visualizationIds.describe(VISUALIZATION_IDS_HELP),
        textWidgets: dashboardEdit.textWidgets.describe(TEXT_WIDGETS_HELP),
        columnsPerRow: dashboardEdit.columnsPerRow.describe(COLUMNS_PER_ROW_HELP),
        tags: dashboardEdit.tags,
        rotateShareToken: dashboardEdit.rotateShareToken.describe(
          'true issues a new dashboardUrl and retires the old link.',
        ),
      },
      outputSchema: dashboardShape,
      annotations: annotate('Update a dashboard', { destructive: true }),
    },
    (args) =>
      guarded(async () => {
        const { dashboardId: id, ...edit } = args;
        const none = nothingToChange('updateDashboard', edit, [
          'name',
          'visualizationIds',
          'textWidgets',
          'columnsPerRow',
          'tags',
          'rotateShareToken',
        ]);
        if (none) return none;
        const { dashboard, shareToken } = await updateDashboard(services, account, id, edit);
        const structured = dashboardOf(dashboard, baseUrl, shareToken);
        return ok(structured, describeDashboard(structured));
      }),
  );

  server.registerTool(
    'archiveDashboard',
    {
      title: 'Archive a dashboard',
      description:
        'Archives one of your dashboards: its page stops being served (404) and it can no longer be changed. The visualizations and queries it showed are kept.',
      inputSchema: { dashboardId },
      outputSchema: { ok: z.boolean(), dashboardId: z.number() },
      annotations: annotate('Archive a dashboard', { destructive: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        await archiveDashboard(services, account, args.dashboardId);
        return ok(
          { ok: true, dashboardId: args.dashboardId },
          `Archived dashboard ${args.dashboardId}; its page now answers 404.`,
        );
      }),
  );
}
