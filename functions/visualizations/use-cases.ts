import type { Account } from '../core/accounts';
import type { ResultValue } from '../core/engine';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import type { Execution } from '../core/executions';
import type { SavedQuery } from '../core/queries';
import type { NewVisualization, Visualization, VisualizationChanges } from '../core/visualizations';
import { latestCompletedExecution } from '../executions/results';
import { ownedQuery, readableQuery } from '../queries/use-cases';
import type { Services } from '../services';
import { type ChartOptions, type CounterOptions, validateOptions } from './options';
import { chartRoles, MAX_RENDER_ROWS, renderChartSvg, renderCounterSvg, svgToPng } from './render';

export async function createVisualization(
  services: Services,
  account: Account,
  queryId: number,
  spec: NewVisualization,
  now = new Date(),
): Promise<Visualization> {
  const query = await ownedQuery(services.queries, account, queryId);
  const execution = await latestCompletedExecution(services, account, queryId);
  const options = validateOptions(spec.type, spec.options, resultOf(execution), query.queryId);
  const at = now.toISOString();
  const visualization: Visualization = {
    visualizationId: await services.visualizations.nextVisualizationId(),
    queryId: query.queryId,
    accountId: query.accountId,
    name: spec.name,
    description: spec.description,
    type: spec.type,
    options,
    createdAt: at,
    updatedAt: at,
  };
  await services.visualizations.create(visualization);
  return visualization;
}

/** A visualization the caller may read: one over a query they may read (else 404). */
export async function readableVisualization(
  services: Services,
  account: Account,
  visualizationId: number,
): Promise<{ visualization: Visualization; query: SavedQuery }> {
  const visualization = await services.visualizations.get(visualizationId);
  if (!visualization) throw new NotFoundError(`Visualization ${visualizationId} not found.`);
  try {
    const query = await readableQuery(services.queries, account, visualization.queryId);
    return { visualization, query };
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new NotFoundError(`Visualization ${visualizationId} not found.`);
    throw error;
  }
}

/** Only the query's owner changes its visualizations (403 for readers of a public query). */
export async function ownedVisualization(services: Services, account: Account, visualizationId: number) {
  const found = await readableVisualization(services, account, visualizationId);
  if (found.query.accountId !== account.accountId) {
    throw new ForbiddenError(
      `Visualization ${visualizationId} belongs to another account; only its owner can change it.`,
    );
  }
  return found;
}

export async function updateVisualization(
  services: Services,
  account: Account,
  visualizationId: number,
  edit: VisualizationChanges,
  now = new Date(),
): Promise<Visualization> {
  if (Object.values(edit).every((value) => value === undefined)) {
    throw new BadRequestError('Nothing to change: send at least one of name, description, type, options.');
  }
  const { visualization } = await ownedVisualization(services, account, visualizationId);
  const type = edit.type ?? visualization.type;
  if (edit.type !== undefined && edit.type !== visualization.type && edit.options === undefined) {
    throw new BadRequestError(`options: changing type to ${edit.type} needs options for a ${edit.type}.`);
  }
  const changes: VisualizationChanges = { name: edit.name, description: edit.description, type: edit.type };
  if (edit.options !== undefined) {
    const execution = await latestCompletedExecution(services, account, visualization.queryId);
    changes.options = validateOptions(type, edit.options, resultOf(execution), visualization.queryId);
  }
  return services.visualizations.update(visualizationId, changes, now.toISOString());
}

export async function deleteVisualization(services: Services, account: Account, visualizationId: number) {
  await ownedVisualization(services, account, visualizationId);
  await services.visualizations.delete(visualizationId);
}

export async function listQueryVisualizations(
  services: Services,
  account: Account,
  queryId: number,
): Promise<Visualization[]> {
  await readableQuery(services.queries, account, queryId);
  return services.visualizations.listByQuery(queryId);
}

function resultOf(execution: Execution) {
  return execution.result ?? { columns: [], rowCount: 0 };
}

export interface RenderedImage {
  svg: string;
  /** Rows of the result drawn (charts: at most MAX_RENDER_ROWS). */
  rowsDrawn: number;
  totalRowCount: number;
}

/**
 * Renders a chart or counter from its query's latest completed result, read as `readerAccountId`
 * may (the dashboard page reads as the dashboard's owner).
 */
export async function renderVisualization(
  services: Services,
  visualization: Visualization,
  execution: Execution,
): Promise<RenderedImage> {
  if (visualization.type === 'table') {
    throw new BadRequestError(
      `Visualization ${visualization.visualizationId} is a table and has no image; read its rows with GET /v1/query/${visualization.queryId}/results.`,
    );
  }
  const result = resultOf(execution);
  let options: Record<string, unknown>;
  try {
    // Columns only: a counter whose row a later run no longer has shows "—" until it is changed.
    options = validateOptions(
      visualization.type,
      visualization.options,
      { columns: result.columns },
      visualization.queryId,
    );
  } catch (error) {
    if (error instanceof BadRequestError) {
      throw new ConflictError(
        `Visualization ${visualization.visualizationId} no longer fits query ${visualization.queryId}'s latest result (${error.message}); update its options.`,
      );
    }
    throw error;
  }
  if (visualization.type === 'counter') {
    const counter = options as CounterOptions;
    const page = await services.results.readPage({
      executionId: execution.executionId,
      offset: counter.rowNumber - 1,
      limit: 1,
      columns: [counter.counterColName],
    });
    const value: ResultValue | undefined = page.rows[0]?.[counter.counterColName];
    return {
      svg: renderCounterSvg({ title: visualization.name, options: counter, value }),
      rowsDrawn: page.rows.length,
      totalRowCount: page.totalRowCount,
    };
  }
  const chart = options as ChartOptions;
  const roles = chartRoles(chart);
  const needed = [
    ...new Set([roles.x, ...roles.ys, roles.series, roles.size].filter((c) => c !== undefined)),
  ];
  const sorted = chart.globalSeriesType !== 'pie' && chart.sortX !== false;
  const page = await services.results.readPage({
    executionId: execution.executionId,
    offset: 0,
    limit: MAX_RENDER_ROWS,
    columns: needed,
    ...(sorted ? { sortBy: [{ column: roles.x, direction: chart.reverseX ? 'desc' : 'asc' }] } : {}),
  });
  const svg = await renderChartSvg({
    title: visualization.name,
    options: chart,
    columns: result.columns,
    rows: page.rows,
    totalRowCount: page.totalRowCount,
  });
  return { svg, rowsDrawn: page.rows.length, totalRowCount: page.totalRowCount };
}

/** The image of a visualization the caller may read, from its query's latest result. */
export async function visualizationImage(
  services: Services,
  account: Account,
  visualizationId: number,
  format: 'svg' | 'png',
): Promise<{ visualization: Visualization; image: RenderedImage; png?: Buffer }> {
  const { visualization } = await readableVisualization(services, account, visualizationId);
  const execution = await latestCompletedExecution(services, account, visualization.queryId);
  const image = await renderVisualization(services, visualization, execution);
  if (format === 'svg') return { visualization, image };
  return { visualization, image, png: await svgToPng(image.svg) };
}
