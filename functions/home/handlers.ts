import { requestBaseUrl } from '../http/request-url';
import { HttpResponse } from '../http/responses';
import { routeHandler } from '../http/route-handler';
import { dataDateRange, HOME_PAGE_HEADERS, homePageHtml } from './page';

/** `GET /`: a public page that tells a newcomer how to use this deployment. */
export const homePage = routeHandler({ auth: 'none' }, async ({ services, event }) => {
  const range = dataDateRange(await services.catalogStats.listStats());
  return new HttpResponse(200, homePageHtml(requestBaseUrl(event), range), HOME_PAGE_HEADERS);
});
