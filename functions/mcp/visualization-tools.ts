import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Account } from '../core/accounts';
import { CHART_SERIES_TYPES, VISUALIZATION_TYPES, type Visualization } from '../core/visualizations';
import { queryIdSchema } from '../queries/schemas';
import type { Services } from '../services';
import { svgToPng } from '../visualizations/render';
import {
  newVisualizationSchema,
  visualizationEditSchema,
  visualizationIdSchema,
} from '../visualizations/schemas';
import {
  createVisualization,
  deleteVisualization,
  listQueryVisualizations,
  readableVisualization,
  updateVisualization,
  visualizationImage,
} from '../visualizations/use-cases';
import type { ToolRegistrar } from './server';
import { annotate, guarded, jsonObject, ok } from './tool-results';

interface Context {
  services: Services;
  account: Account;
  baseUrl: string;
}

// The arguments are the visualization operations' own field schemas (functions/visualizations/schemas.ts):
// the limits live there once.
const newVisualization = newVisualizationSchema.shape;
const visualizationEdit = visualizationEditSchema.shape;
const visualizationId = visualizationIdSchema.describe('The id returned by generateVisualization.');
const queryId = queryIdSchema.describe('The saved query whose latest result is drawn.');
const optionsHelp = `Dune-style options, by type. chart: {globalSeriesType: ${CHART_SERIES_TYPES.join('|')}, columnMapping: {"<column>": "x"|"y"|"series"|"size"} (one x, one or more numeric y, at most one series), sortX?, reverseX?, series?: {stacking: "stack"|null}, xAxis?: {title: {text}}, yAxis?: [{title: {text}, type?: "logarithmic"}], legend?: {enabled}}. counter: {counterColName, rowNumber? (1-based, default 1), stringPrefix?, stringSuffix?, stringDecimal?, counterLabel?}. table: {columns?: [{name, title?, isHidden?}], itemsPerPage?}. Column names must match the result's columns exactly.`;

const visualizationShape = {
  visualizationId: z.number(),
  queryId: z.number(),
  name: z.string(),
  description: z.string(),
  type: z.enum(VISUALIZATION_TYPES),
  options: jsonObject(),
  imageUrl: z
    .string()
    .optional()
    .describe('SVG of the chart or counter, rendered from the latest result (needs the API key).'),
  createdAt: z.string(),
  updatedAt: z.string(),
};
const visualizationOutput = z.object(visualizationShape);

function visualizationOf(visualization: Visualization, baseUrl: string): z.infer<typeof visualizationOutput> {
  return {
    visualizationId: visualization.visualizationId,
    queryId: visualization.queryId,
    name: visualization.name,
    description: visualization.description,
    type: visualization.type,
    // Stored options came in as JSON and are kept as such.
    options: visualization.options as Record<string, z.core.util.JSONType>,
    ...(visualization.type !== 'table'
      ? { imageUrl: `${baseUrl}/v1/visualizations/${visualization.visualizationId}/image.svg` }
      : {}),
    createdAt: visualization.createdAt,
    updatedAt: visualization.updatedAt,
  };
}

/**
 * The result with the rendered image as an `image` content item (PNG where the rasterizer is
 * installed, else SVG), so the user and the model see the chart. Tables get no image.
 */
async function withImage(
  context: Context,
  visualization: Visualization,
  text: string,
): Promise<CallToolResult> {
  const structured = visualizationOf(visualization, context.baseUrl);
  const result = ok(structured, text);
  if (visualization.type === 'table') return result;
  try {
    const { image } = await visualizationImage(
      context.services,
      context.account,
      visualization.visualizationId,
      'svg',
    );
    const png = await svgToPng(image.svg);
    result.content.push(
      png
        ? { type: 'image', data: png.toString('base64'), mimeType: 'image/png' }
        : {
            type: 'image',
            data: Buffer.from(image.svg, 'utf8').toString('base64'),
            mimeType: 'image/svg+xml',
          },
    );
    if (image.totalRowCount > image.rowsDrawn && visualization.type === 'chart') {
      result.content.push({
        type: 'text',
        text: `The chart draws the first ${image.rowsDrawn} of ${image.totalRowCount} rows; aggregate in SQL to show everything.`,
      });
    }
  } catch (error) {
    result.content.push({
      type: 'text',
      text: `The image could not be rendered: ${(error as Error).message}`,
    });
  }
  return result;
}

function summary(v: Visualization): string {
  return `Visualization ${v.visualizationId} "${v.name}" (${v.type}${v.type === 'chart' ? `, ${String(v.options.globalSeriesType)}` : ''}) on query ${v.queryId}`;
}

export function registerVisualizationTools(server: ToolRegistrar, context: Context): void {
  const { services, account } = context;

  server.registerTool(
    'generateVisualization',
    {
      title: 'Create a visualization',
      description:
        "Creates a chart (bar, column, line, area, scatter, pie), counter or table on a saved query and returns it; a chart or counter comes back rendered as an image from the query's latest completed result. The query must be yours and must have run (executeQueryById, then getExecutionResults until completed). Options are checked against the result's real columns; an error lists the available columns. Next: createDashboard with the returned visualizationId.",
      inputSchema: {
        queryId,
        name: newVisualization.name.describe('Title shown above the chart.'),
        type: newVisualization.type,
        options: newVisualization.options.describe(optionsHelp),
        description: newVisualization.description,
      },
      outputSchema: visualizationShape,
      annotations: annotate('Create a visualization'),
    },
    (args) =>
      guarded(async () => {
        const { queryId, ...spec } = args;
        const created = await createVisualization(services, account, queryId, spec);
        return withImage(
          context,
          created,
          `Created ${summary(created)}. Add it to a dashboard with createDashboard {"visualizationIds": [${created.visualizationId}]}.`,
        );
      }),
  );

  server.registerTool(
    'getVisualization',
    {
      title: 'Read a visualization',
      description:
        "Returns a visualization's type and options and, for a chart or counter, its image rendered from the query's latest result (run the query again with executeQueryById to refresh it). Use it to look at a chart or before updateVisualization.",
      inputSchema: { visualizationId },
      outputSchema: visualizationShape,
      annotations: annotate('Read a visualization', { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const { visualization } = await readableVisualization(services, account, args.visualizationId);
        return withImage(context, visualization, `${summary(visualization)}.`);
      }),
  );

  server.registerTool(
    'updateVisualization',
    {
      title: 'Update a visualization',
      description:
        "Changes a visualization's name, description, type or options; `options` replaces the whole options object (send all of it), and changing `type` needs new options. Only the query's owner can. Returns the visualization with its new image.",
      inputSchema: {
        visualizationId,
        name: visualizationEdit.name,
        description: visualizationEdit.description,
        type: visualizationEdit.type,
        options: visualizationEdit.options.describe(optionsHelp),
      },
      outputSchema: visualizationShape,
      annotations: annotate('Update a visualization', { destructive: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const { visualizationId, ...edit } = args;
        const updated = await updateVisualization(services, account, visualizationId, edit);
        return withImage(context, updated, `Updated ${summary(updated)}.`);
      }),
  );

  server.registerTool(
    'deleteVisualization',
    {
      title: 'Delete a visualization',
      description:
        "Deletes a visualization for good (the query and its results stay). Only the query's owner can. Dashboards that showed it show a notice in its place; update them with updateDashboard.",
      inputSchema: { visualizationId },
      outputSchema: { ok: z.boolean(), visualizationId: z.number() },
      annotations: annotate('Delete a visualization', { destructive: true }),
    },
    (args) =>
      guarded(async () => {
        await deleteVisualization(services, account, args.visualizationId);
        return ok(
          { ok: true, visualizationId: args.visualizationId },
          `Deleted visualization ${args.visualizationId}.`,
        );
      }),
  );

  server.registerTool(
    'listQueryVisualizations',
    {
      title: "List a query's visualizations",
      description:
        'Lists the visualizations of a saved query (yours, or a public one), oldest first, with their options but no images. Use getVisualization to see one rendered.',
      inputSchema: { queryId },
      outputSchema: { visualizations: z.array(visualizationOutput), total: z.number() },
      annotations: annotate("List a query's visualizations", { readOnly: true, idempotent: true }),
    },
    (args) =>
      guarded(async () => {
        const list = await listQueryVisualizations(services, account, args.queryId);
        const lines = list.map((v) => `- ${summary(v)}`);
        return ok(
          { visualizations: list.map((v) => visualizationOf(v, context.baseUrl)), total: list.length },
          list.length
            ? `${list.length} visualization(s) on query ${args.queryId}:\n${lines.join('\n')}`
            : `Query ${args.queryId} has no visualizations yet; create one with generateVisualization.`,
        );
      }),
  );
}
