/** Visualizations: a chart, counter or table over a saved query's latest result. */
export const VISUALIZATION_TYPES = ['chart', 'counter', 'table'] as const;
export type VisualizationType = (typeof VISUALIZATION_TYPES)[number];

export const CHART_SERIES_TYPES = ['bar', 'column', 'line', 'area', 'scatter', 'pie'] as const;
export type ChartSeriesType = (typeof CHART_SERIES_TYPES)[number];

export interface Visualization {
  visualizationId: number;
  queryId: number;
  /** The query owner's account: only they change the visualization. */
  accountId: string;
  name: string;
  description: string;
  type: VisualizationType;
  /** Validated against the result's columns when saved; replaced whole on update. */
  options: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export type VisualizationChanges = Partial<Pick<Visualization, 'name' | 'description' | 'type' | 'options'>>;

/** What a caller sends to create a visualization on a query. */
export type NewVisualization = Pick<Visualization, 'name' | 'description' | 'type' | 'options'>;

export interface VisualizationStore {
  /** Allocates the next integer id (atomic counter). */
  nextVisualizationId(): Promise<number>;
  create(visualization: Visualization): Promise<void>;
  get(visualizationId: number): Promise<Visualization | undefined>;
  /** NotFoundError when it no longer exists. */
  update(visualizationId: number, changes: VisualizationChanges, updatedAt: string): Promise<Visualization>;
  delete(visualizationId: number): Promise<void>;
  /** Oldest first. */
  listByQuery(queryId: number): Promise<Visualization[]>;
}
