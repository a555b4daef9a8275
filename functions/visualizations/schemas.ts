import { z } from 'zod';
import { jsonObject } from '../core/validation';
import {
  type NewVisualization,
  VISUALIZATION_TYPES,
  type VisualizationChanges,
} from '../core/visualizations';

// The visualization operations. Each field's rules and limits live here once; the REST bodies are
// these schemas (their field names are single words, the same in both casings) and the MCP tool
// arguments (functions/mcp/visualization-tools.ts) take their fields.

/** Stored in one DynamoDB item (400 KB at most): options stay small. */
const MAX_OPTIONS_CHARS = 50_000;

/** createVisualization's input, with its defaults. */
export const newVisualizationSchema = z.strictObject({
  name: z.string().trim().min(1).max(300),
  description: z.string().max(1000).default(''),
  type: z.enum(VISUALIZATION_TYPES),
  // JSON values only (what a JSON body or a tool argument can carry), checked per type by options.ts.
  // Spelled as jsonObject() in the published schema: z.record(z.string(), z.json()) writes the
  // propertyNames and $ref that MCP clients' one-type dialects reject; the check stays z.json()'s.
  options: jsonObject()
    .refine((value) => z.json().safeParse(value).success, {
      message: 'options must hold JSON values only',
      abort: true,
    })
    .refine((value) => JSON.stringify(value).length <= MAX_OPTIONS_CHARS, {
      message: `options must be at most ${MAX_OPTIONS_CHARS} characters of JSON`,
    })
    .default({}),
}) satisfies z.ZodType<NewVisualization>;

const newVisualization = newVisualizationSchema.shape;

/**
 * updateVisualization's input: the fields present change; `options` replaces the whole object and
 * changing `type` needs new `options` (the use case's rules).
 */
export const visualizationEditSchema = z.strictObject({
  name: newVisualization.name.optional(),
  description: newVisualization.description.unwrap().optional(),
  type: newVisualization.type.optional(),
  options: newVisualization.options.unwrap().optional(),
}) satisfies z.ZodType<VisualizationChanges>;

export const visualizationIdSchema = z.number().int().positive();

export const visualizationIdPath = z.strictObject({
  visualization_id: z.coerce
    .number({ error: 'visualization_id must be an integer' })
    .int('visualization_id must be an integer')
    .positive('visualization_id must be positive'),
});
