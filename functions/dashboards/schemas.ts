import { z } from 'zod';
import type { DashboardEdit, NewDashboard, WidgetPosition } from '../core/dashboards';
import { visualizationIdSchema } from '../visualizations/schemas';

// The dashboard operations. Each field's rules and limits live here once; the REST bodies below
// (snake_case, Dune's names) and the MCP tool arguments (functions/mcp/dashboard-tools.ts,
// camelCase) are renamings over these schemas. Rules across fields (the total text, one kind of
// visualization list) are the use cases'.

/** A cell of the 6-column grid. */
export const positionSchema = z.strictObject({
  row: z.number().int().min(0).max(10_000),
  col: z.number().int().min(0).max(5),
  sizeX: z.number().int().min(1).max(6),
  sizeY: z.number().int().min(1).max(100),
}) satisfies z.ZodType<WidgetPosition>;

const textWidget = z.strictObject({
  text: z.string().min(1).max(10_000),
  position: positionSchema.optional(),
});

/** createDashboard's input, with its defaults. */
export const newDashboardSchema = z.strictObject({
  name: z.string().trim().min(1).max(300),
  tags: z.array(z.string().trim().min(1).max(64)).max(50).default([]),
  visualizationIds: z.array(visualizationIdSchema).max(100).default([]),
  textWidgets: z.array(textWidget).max(50).default([]),
  columnsPerRow: z.number().int().min(1).max(3).default(2),
}) satisfies z.ZodType<NewDashboard>;

const newDashboard = newDashboardSchema.shape;

/** updateDashboard's input: the fields present change. */
export const dashboardEditSchema = z.strictObject({
  name: newDashboard.name.optional(),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'slug uses lower-case letters, digits and single dashes')
    .max(80)
    .optional(),
  tags: newDashboard.tags.unwrap().optional(),
  visualizationIds: newDashboard.visualizationIds.unwrap().optional(),
  visualizationWidgets: z
    .array(z.strictObject({ visualizationId: visualizationIdSchema, position: positionSchema.optional() }))
    .max(100)
    .optional(),
  textWidgets: newDashboard.textWidgets.unwrap().optional(),
  columnsPerRow: newDashboard.columnsPerRow.unwrap().optional(),
  rotateShareToken: z.boolean().optional(),
}) satisfies z.ZodType<DashboardEdit>;

const edit = dashboardEditSchema.shape;

// REST bodies: Dune's names; positions as {row, col, size_x, size_y}.

const positionBody = z
  .strictObject({
    row: positionSchema.shape.row,
    col: positionSchema.shape.col,
    size_x: positionSchema.shape.sizeX,
    size_y: positionSchema.shape.sizeY,
  })
  .transform((p): WidgetPosition => ({ row: p.row, col: p.col, sizeX: p.size_x, sizeY: p.size_y }));

const textWidgetBody = z.strictObject({
  text: textWidget.shape.text,
  position: positionBody.optional(),
});

const textWidgetsBody = z.array(textWidgetBody).max(50);

export const createDashboardBody = z
  .strictObject({
    name: newDashboard.name,
    tags: newDashboard.tags,
    visualization_ids: newDashboard.visualizationIds,
    text_widgets: textWidgetsBody.default([]),
    columns_per_row: newDashboard.columnsPerRow,
    /** Accepted for Dune clients; the page is always reachable only through its share link. */
    is_private: z.boolean().optional(),
  })
  .transform(
    (body): NewDashboard => ({
      name: body.name,
      tags: body.tags,
      visualizationIds: body.visualization_ids,
      textWidgets: body.text_widgets,
      columnsPerRow: body.columns_per_row,
    }),
  );

export const updateDashboardBody = z
  .strictObject({
    name: edit.name,
    slug: edit.slug,
    tags: edit.tags,
    visualization_ids: edit.visualizationIds,
    visualization_widgets: z
      .array(z.strictObject({ visualization_id: visualizationIdSchema, position: positionBody.optional() }))
      .max(100)
      .optional(),
    text_widgets: textWidgetsBody.optional(),
    columns_per_row: edit.columnsPerRow,
    rotate_share_token: edit.rotateShareToken,
    /** Accepted for Dune clients; dashboards are private to their owner either way. */
    is_private: z.boolean().optional(),
  })
  .transform(
    (body): DashboardEdit => ({
      name: body.name,
      slug: body.slug,
      tags: body.tags,
      visualizationIds: body.visualization_ids,
      visualizationWidgets: body.visualization_widgets?.map((w) => ({
        visualizationId: w.visualization_id,
        position: w.position,
      })),
      textWidgets: body.text_widgets,
      columnsPerRow: body.columns_per_row,
      rotateShareToken: body.rotate_share_token,
    }),
  );

export const dashboardIdSchema = z.number().int().positive();

export const dashboardIdPath = z.strictObject({
  dashboard_id: z.coerce
    .number({ error: 'dashboard_id must be an integer' })
    .int('dashboard_id must be an integer')
    .positive('dashboard_id must be positive'),
});

export const dashboardPageQuery = z.object({ key: z.string().max(200).optional() });
