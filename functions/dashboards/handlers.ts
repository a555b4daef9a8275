import { shareTokenMatches } from '../core/dashboards';
import { requestBaseUrl } from '../http/request-url';
import { HttpResponse } from '../http/responses';
import { routeHandler } from '../http/route-handler';
import { dashboardHtml, notFoundPage, PAGE_HEADERS } from './page';
import { archivedDashboardResponse, dashboardResponse, dashboardResponseOf } from './presenter';
import { createDashboardBody, dashboardIdPath, dashboardPageQuery, updateDashboardBody } from './schemas';
import * as dashboards from './use-cases';

export const createDashboard = routeHandler(
  {
    body: createDashboardBody,
    docs: { summary: 'Create a dashboard of visualizations and text', response: dashboardResponse },
  },
  async ({ services, account, body, event }) => {
    const { dashboard, shareToken } = await dashboards.createDashboard(services, account, body);
    return dashboardResponseOf(dashboard, requestBaseUrl(event), shareToken);
  },
);

export const getDashboard = routeHandler(
  { path: dashboardIdPath, docs: { summary: 'Read a dashboard', response: dashboardResponse } },
  async ({ services, account, path, event }) =>
    dashboardResponseOf(
      await dashboards.ownDashboard(services, account, path.dashboard_id),
      requestBaseUrl(event),
    ),
);

export const updateDashboard = routeHandler(
  {
    path: dashboardIdPath,
    body: updateDashboardBody,
    docs: { summary: 'Change a dashboard', response: dashboardResponse },
  },
  async ({ services, account, path, body, event }) => {
    const { dashboard, shareToken } = await dashboards.updateDashboard(
      services,
      account,
      path.dashboard_id,
      body,
    );
    return dashboardResponseOf(dashboard, requestBaseUrl(event), shareToken);
  },
);

export const archiveDashboard = routeHandler(
  {
    path: dashboardIdPath,
    docs: {
      summary: 'Archive a dashboard (its page stops being served)',
      response: archivedDashboardResponse,
    },
  },
  async ({ services, account, path }) => {
    const dashboard = await dashboards.archiveDashboard(services, account, path.dashboard_id);
    return { ok: true, dashboard_id: dashboard.dashboardId };
  },
);

/**
 * The server-rendered page a browser opens: no API key (a browser cannot send the header); the
 * `?key=` share token is the credential. Anything wrong is the same 404 page.
 */
export const dashboardPage = routeHandler(
  { auth: 'none', path: dashboardIdPath, query: dashboardPageQuery },
  async ({ services, path, query }) => {
    const notFound = new HttpResponse(404, notFoundPage(), PAGE_HEADERS);
    const dashboard = await services.dashboards.get(path.dashboard_id);
    if (!dashboard || dashboard.isArchived || !shareTokenMatches(query.key, dashboard.shareTokenHash)) {
      return notFound;
    }
    const owner = await services.accounts.getAccount(dashboard.accountId);
    if (!owner) return notFound;
    return new HttpResponse(200, await dashboardHtml(services, dashboard, owner), PAGE_HEADERS);
  },
);
