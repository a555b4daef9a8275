import { z } from 'zod';

const name = z.string().trim().min(1).max(300);
const tags = z.array(z.string().trim().min(1).max(64)).max(50);
const visualizationId = z.number().int().positive();

export const positionSchema = z.strictObject({
  row: z.number().int().min(0).max(10_000),
  col: z.number().int().min(0).max(5),
  size_x: z.number().int().min(1).max(6),
  size_y: z.number().int().min(1).max(100),
});

const textWidget = z.strictObject({
  text: z.string().min(1).max(10_000),
  position: positionSchema.optional(),
});
const visualizationWidget = z.strictObject({
  visualization_id: visualizationId,
  position: positionSchema.optional(),
});
const columnsPerRow = z.number().int().min(1).max(3);
/** A dashboard is one DynamoDB item (400 KB at most). */
const MAX_TOTAL_TEXT = 100_000;
const totalTextFits = (widgets: { text: string }[] | undefined) =>
  (widgets ?? []).reduce((sum, w) => sum + w.text.length, 0) <= MAX_TOTAL_TEXT;
const textTooLong = {
  message: `text_widgets hold at most ${MAX_TOTAL_TEXT} characters in all`,
  path: ['text_widgets'],
};

export const createDashboardBody = z
  .strictObject({
    name,
    tags: tags.default([]),
    visualization_ids: z.array(visualizationId).max(100).default([]),
    text_widgets: z.array(textWidget).max(50).default([]),
    columns_per_row: columnsPerRow.default(2),
    /** Accepted for Dune clients; the page is always reachable only through its share link. */
    is_private: z.boolean().optional(),
  })
  .refine((body) => totalTextFits(body.text_widgets), textTooLong);

/** Any widget array replaces all widgets (of every kind); `columns_per_row` alone lays them out again. */
export const updateDashboardBody = z
  .strictObject({
    name: name.optional(),
    slug: z
      .string()
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'slug uses lower-case letters, digits and single dashes')
      .max(80)
      .optional(),
    tags: tags.optional(),
    visualization_ids: z.array(visualizationId).max(100).optional(),
    visualization_widgets: z.array(visualizationWidget).max(100).optional(),
    text_widgets: z.array(textWidget).max(50).optional(),
    columns_per_row: columnsPerRow.optional(),
    /** Issues a new share link (returned in `dashboard_url`); the old one stops working. */
    rotate_share_token: z.boolean().optional(),
    is_private: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      'nothing to change: send at least one of name, slug, tags, visualization_ids, visualization_widgets, text_widgets, columns_per_row, rotate_share_token',
  })
  .refine((body) => !(body.visualization_ids && body.visualization_widgets), {
    message: 'send visualization_ids or visualization_widgets, not both',
  })
  .refine((body) => totalTextFits(body.text_widgets), textTooLong);

export const dashboardIdPath = z.strictObject({
  dashboard_id: z.coerce
    .number({ error: 'dashboard_id must be an integer' })
    .int('dashboard_id must be an integer')
    .positive('dashboard_id must be positive'),
});

export const dashboardPageQuery = z.object({ key: z.string().max(200).optional() });

export type CreateDashboardBody = z.output<typeof createDashboardBody>;
export type UpdateDashboardBody = z.output<typeof updateDashboardBody>;
export type PositionInput = z.output<typeof positionSchema>;
