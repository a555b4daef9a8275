import type { Visualization } from '../core/visualizations';

/** REST shape (snake_case, Dune-like). */
export function visualizationResponse(visualization: Visualization) {
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
