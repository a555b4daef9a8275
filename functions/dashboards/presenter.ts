import { z } from 'zod';
import type { Dashboard, WidgetPosition } from '../core/dashboards';

/** The page URL; with the share token when it was just issued (only its hash is stored). */
export function dashboardUrl(baseUrl: string, dashboardId: number, shareToken?: string): string {
  const page = `${baseUrl}/dashboards/${dashboardId}`;
  return shareToken ? `${page}?key=${encodeURIComponent(shareToken)}` : page;
}

const positionResponse = z.object({
  row: z.number().int(),
  col: z.number().int(),
  size_x: z.number().int(),
  size_y: z.number().int(),
});

function position(p: WidgetPosition): z.output<typeof positionResponse> {
  return { row: p.row, col: p.col, size_x: p.sizeX, size_y: p.sizeY };
}

// REST answers (snake_case, Dune's DashboardResponse). The schemas document them in the OpenAPI
// document and type the functions that build them.

export const dashboardResponse = z.object({
  dashboard_id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  owner: z.string(),
  is_private: z.boolean().describe('Always true: the page is reachable only through its share link.'),
  is_archived: z.boolean(),
  tags: z.array(z.string()),
  columns_per_row: z.number().int(),
  dashboard_url: z
    .string()
    .describe('The page in a browser; it carries its share key only when just issued (create, or rotation).'),
  share_link_included: z.boolean(),
  visualization_widgets: z.array(
    z.object({ widget_id: z.number().int(), visualization_id: z.number().int(), position: positionResponse }),
  ),
  text_widgets: z.array(
    z.object({ widget_id: z.number().int(), text: z.string(), position: positionResponse }),
  ),
  param_widgets: z.array(z.never()),
  created_at: z.string(),
  updated_at: z.string(),
});

export function dashboardResponseOf(
  dashboard: Dashboard,
  baseUrl: string,
  shareToken?: string,
): z.output<typeof dashboardResponse> {
  return {
    dashboard_id: dashboard.dashboardId,
    name: dashboard.name,
    slug: dashboard.slug,
    owner: dashboard.ownerHandle,
    is_private: true,
    is_archived: dashboard.isArchived,
    tags: dashboard.tags,
    columns_per_row: dashboard.columnsPerRow,
    dashboard_url: dashboardUrl(baseUrl, dashboard.dashboardId, shareToken),
    share_link_included: shareToken !== undefined,
    visualization_widgets: dashboard.visualizationWidgets.map((w) => ({
      widget_id: w.widgetId,
      visualization_id: w.visualizationId,
      position: position(w.position),
    })),
    text_widgets: dashboard.textWidgets.map((w) => ({
      widget_id: w.widgetId,
      text: w.text,
      position: position(w.position),
    })),
    param_widgets: [],
    created_at: dashboard.createdAt,
    updated_at: dashboard.updatedAt,
  };
}

export const archivedDashboardResponse = z.object({ ok: z.boolean(), dashboard_id: z.number().int() });
