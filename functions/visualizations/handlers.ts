import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { HttpResponse } from '../http/responses';
import { routeHandler } from '../http/route-handler';
import { queryIdPath } from '../queries/schemas';
import {
  createdVisualizationResponse,
  deletedVisualizationResponse,
  visualizationListResponse,
  visualizationResponse,
  visualizationResponseOf,
} from './presenter';
import { newVisualizationSchema, visualizationEditSchema, visualizationIdPath } from './schemas';
import * as visualizations from './use-cases';

export const createVisualization = routeHandler(
  {
    idempotent: true,
    path: queryIdPath,
    body: newVisualizationSchema,
    docs: {
      summary: "Create a chart, counter or table on a query's latest result",
      response: createdVisualizationResponse,
    },
  },
  async ({ services, account, path, body }) => {
    const created = await visualizations.createVisualization(services, account, path.query_id, body);
    return { id: created.visualizationId };
  },
);

export const listQueryVisualizations = routeHandler(
  { path: queryIdPath, docs: { summary: "A query's visualizations", response: visualizationListResponse } },
  async ({ services, account, path }) => {
    const list = await visualizations.listQueryVisualizations(services, account, path.query_id);
    return { visualizations: list.map(visualizationResponseOf), total: list.length };
  },
);

export const getVisualization = routeHandler(
  { path: visualizationIdPath, docs: { summary: 'Read a visualization', response: visualizationResponse } },
  async ({ services, account, path }) =>
    visualizationResponseOf(
      (await visualizations.readableVisualization(services, account, path.visualization_id)).visualization,
    ),
);

export const updateVisualization = routeHandler(
  {
    path: visualizationIdPath,
    body: visualizationEditSchema,
    docs: { summary: 'Change a visualization', response: visualizationResponse },
  },
  async ({ services, account, path, body }) =>
    visualizationResponseOf(
      await visualizations.updateVisualization(services, account, path.visualization_id, body),
    ),
);

export const deleteVisualization = routeHandler(
  {
    path: visualizationIdPath,
    docs: { summary: 'Delete a visualization', response: deletedVisualizationResponse },
  },
  async ({ services, account, path }) => {
    await visualizations.deleteVisualization(services, account, path.visualization_id);
    return { ok: true, id: path.visualization_id };
  },
);

const IMAGE_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

export const getVisualizationSvg = routeHandler(
  { path: visualizationIdPath, docs: { produces: 'image/svg+xml' } },
  async ({ services, account, path }) => {
    const { image } = await visualizations.visualizationImage(
      services,
      account,
      path.visualization_id,
      'svg',
    );
    return new HttpResponse(200, image.svg, {
      ...IMAGE_HEADERS,
      'content-type': 'image/svg+xml; charset=utf-8',
      // An SVG opened directly must not run anything.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    });
  },
);

const pngRoute = routeHandler(
  { path: visualizationIdPath, docs: { produces: 'image/png', errors: [501] } },
  async ({ services, account, path }) => {
    const { png } = await visualizations.visualizationImage(services, account, path.visualization_id, 'png');
    if (!png) {
      return new HttpResponse(
        501,
        JSON.stringify({ error: 'PNG rendering is not available in this deployment; use image.svg.' }),
        { 'content-type': 'application/json; charset=utf-8' },
      );
    }
    return new HttpResponse(200, png.toString('base64'), {
      ...IMAGE_HEADERS,
      'content-type': 'image/png',
      'x-body-encoding': 'base64',
    });
  },
);

/** A PNG travels base64-encoded in the proxy result (API Gateway decodes it for binary media types). */
export const getVisualizationPng = Object.assign(
  async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const result = await pngRoute(event, context);
    if (result?.headers?.['x-body-encoding'] === 'base64') {
      const { 'x-body-encoding': _marker, ...headers } = result.headers;
      return { ...result, headers, isBase64Encoded: true };
    }
    return result;
  },
  { routeSpec: pngRoute.routeSpec },
);
