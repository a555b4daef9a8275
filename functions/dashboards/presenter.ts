import type { Dashboard, WidgetPosition } from '../core/dashboards';

/** The page URL; with the share token when it was just issued (only its hash is stored). */
export function dashboardUrl(baseUrl: string, dashboardId: number, shareToken?: string): string {
  const page = `${baseUrl}/dashboards/${dashboardId}`;
  return shareToken ? `${page}?key=${encodeURIComponent(shareToken)}` : page;
}

function position(p: WidgetPosition) {
  return { row: p.row, col: p.col, size_x: p.sizeX, size_y: p.sizeY };
}

/** REST shape (snake_case, Dune's DashboardResponse). */
export function dashboardResponse(dashboard: Dashboard, baseUrl: string, shareToken?: string) {
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
    param_widgets: [] as never[],
    created_at: dashboard.createdAt,
    updated_at: dashboard.updatedAt,
  };
}
