import { requestBaseUrl } from '../http/request-url';
import { routeHandler } from '../http/route-handler';
import { openApiDocument } from './document';

/** `GET /v1/openapi.json`: public, so client generators and API explorers can fetch it without a key. */
export const getOpenApiDocument = routeHandler(
  { auth: 'none', docs: { summary: "This API's OpenAPI 3.1 document" } },
  async ({ event }) => openApiDocument(requestBaseUrl(event)),
);
