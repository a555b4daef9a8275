import { z } from 'zod';
import { VISUALIZATION_TYPES } from '../core/visualizations';

const name = z.string().trim().min(1).max(300);
const description = z.string().max(1000);
/** Stored in one DynamoDB item (400 KB at most): options stay small. */
const MAX_OPTIONS_CHARS = 50_000;
const options = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= MAX_OPTIONS_CHARS, {
    message: `options must be at most ${MAX_OPTIONS_CHARS} characters of JSON`,
  });

export const createVisualizationBody = z.strictObject({
  name,
  description: description.default(''),
  type: z.enum(VISUALIZATION_TYPES),
  options: options.default({}),
});

/** `options` replaces the whole object; changing `type` needs new `options`. */
export const updateVisualizationBody = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    type: z.enum(VISUALIZATION_TYPES).optional(),
    options: options.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'nothing to change: send at least one of name, description, type, options',
  });

export const visualizationIdPath = z.strictObject({
  visualization_id: z.coerce
    .number({ error: 'visualization_id must be an integer' })
    .int('visualization_id must be an integer')
    .positive('visualization_id must be positive'),
});

export type CreateVisualizationBody = z.output<typeof createVisualizationBody>;
export type UpdateVisualizationBody = z.output<typeof updateVisualizationBody>;
