import { z } from 'zod';
import { VISUALIZATION_TYPES, type Visualization } from '../core/visualizations';

// REST answers (snake_case, Dune-like). The schemas document them in the OpenAPI document and type
// the functions that build them.

export const visualizationResponse = z.object({
  id: z.number().int(),
  query_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  type: z.enum(VISUALIZATION_TYPES),
  options: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});

export function visualizationResponseOf(
  visualization: Visualization,
): z.output<typeof visualizationResponse> {
  return {
    id: visualization.visualizationId,
    query_id: visualization.queryId,
    name: visualization.name,
    description: visualization.description,
    type: visualization.type,
    options: visualization.options,
    created_at: visualization.createdAt,
    updated_at: visualization.updatedAt,
  };
}

export const createdVisualizationResponse = z.object({ id: z.number().int() });

export const visualizationListResponse = z.object({
  visualizations: z.array(visualizationResponse),
  total: z.number().int(),
});

export const deletedVisualizationResponse = z.object({ ok: z.boolean(), id: z.number().int() });
