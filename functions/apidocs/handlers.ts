import { requestBaseUrl } from '../http/request-url';
import { HttpResponse } from '../http/responses';
import { routeHandler } from '../http/route-handler';
import {
  API_REFERENCE_PAGE_HEADERS,
  API_REFERENCE_SCRIPT_HEADERS,
  apiReferenceHtml,
  apiReferenceScript,
} from './page';

/** `GET /docs`: the API reference, rendered in the browser from this host's OpenAPI document. */
export const apiReferencePage = routeHandler(
  { auth: 'none' },
  async ({ event }) =>
    new HttpResponse(200, apiReferenceHtml(requestBaseUrl(event)), API_REFERENCE_PAGE_HEADERS),
);

/** `GET /docs/rapidoc.js`: the page's renderer, served by this host so the page needs no CDN. */
export const apiReferenceRenderer = routeHandler(
  { auth: 'none' },
  async () => new HttpResponse(200, await apiReferenceScript(), API_REFERENCE_SCRIPT_HEADERS),
);
