import { z } from 'zod';
import type { ResultColumn } from '../core/engine';
import { BadRequestError } from '../core/errors';
import type { ExecutionResultMetadata } from '../core/executions';
import { duneSqlTypeName } from '../core/sql-types';
import { formatZodError } from '../core/validation';
import { CHART_SERIES_TYPES, type VisualizationType } from '../core/visualizations';

/**
 * Options of each visualization type, in the Dune shapes. Unknown extra fields (seriesOptions,
 * numberFormat, chartStyles…) are kept so Dune clients round-trip them; the fields below are
 * the ones this service renders and checks against the result's real columns.
 */
const columnName = z.string().min(1).max(300);
const title = z.looseObject({ text: z.string().max(300).optional() });

export const chartOptions = z.looseObject({
  globalSeriesType: z.enum(CHART_SERIES_TYPES),
  columnMapping: z.record(columnName, z.enum(['x', 'y', 'series', 'size'])),
  sortX: z.boolean().optional(),
  reverseX: z.boolean().optional(),
  series: z.looseObject({ stacking: z.enum(['stack']).nullable().optional() }).optional(),
  xAxis: z.looseObject({ title: title.optional() }).optional(),
  yAxis: z
    .array(
      z.looseObject({ title: title.optional(), type: z.enum(['linear', 'logarithmic', '-']).optional() }),
    )
    .max(2)
    .optional(),
  legend: z.looseObject({ enabled: z.boolean().optional() }).optional(),
});

export const counterOptions = z.looseObject({
  counterColName: columnName,
  rowNumber: z.number().int().min(1).default(1),
  stringPrefix: z.string().max(50).optional(),
  stringSuffix: z.string().max(50).optional(),
  stringDecimal: z.number().int().min(0).max(10).optional(),
  counterLabel: z.string().max(300).optional(),
});

export const tableOptions = z.looseObject({
  itemsPerPage: z.number().int().min(1).max(1000).default(25),
  columns: z
    .array(
      z.looseObject({
        name: columnName,
        title: z.string().max(300).optional(),
        type: z.enum(['normal', 'progressbar']).optional(),
        alignContent: z.enum(['left', 'right', 'center']).optional(),
        isHidden: z.boolean().optional(),
      }),
    )
    .max(500)
    .optional(),
});

export type ChartOptions = z.output<typeof chartOptions>;
export type CounterOptions = z.output<typeof counterOptions>;
export type TableOptions = z.output<typeof tableOptions>;

const NUMERIC_TYPE = /INT|DECIMAL|NUMERIC|DOUBLE|FLOAT|REAL/i;
// Dates and timestamps (any precision or zone); a time of day has no date to place it on a time axis.
const TEMPORAL_TYPE = /^(DATE|TIMESTAMP)/i;

export function isNumericColumn(column: ResultColumn): boolean {
  return NUMERIC_TYPE.test(column.type) && !/INTERVAL/i.test(column.type);
}

export function isTemporalColumn(column: ResultColumn): boolean {
  return TEMPORAL_TYPE.test(column.type);
}

/** Columns with their types as the results API names them (`varbinary`, `timestamp(3)`). */
export function describeColumns(columns: readonly ResultColumn[]): string {
  return columns.map((c) => `${c.name} (${duneSqlTypeName(c.type)})`).join(', ');
}

/** The roles a chart's columnMapping gives, in the order an example lists them. */
const ROLES = ['x', 'y', 'series', 'size'] as const;

/**
 * A columnMapping for a chart sent without one: from the columns the request put elsewhere (the
 * common guess `{"x": "week", "y": ["volume_usd"]}`), else the result's first column as x and its
 * first numeric column as y.
 */
function columnMappingExample(options: unknown, columns: readonly ResultColumn[]): Record<string, string> {
  const sent = (options ?? {}) as Record<string, unknown>;
  const fromRequest = ROLES.flatMap((role) =>
    [sent[role]].flat().flatMap((name) => (typeof name === 'string' && name ? [[name, role]] : [])),
  );
  if (fromRequest.some(([, role]) => role === 'x') && fromRequest.some(([, role]) => role === 'y')) {
    return Object.fromEntries(fromRequest);
  }
  const x = columns[0]?.name ?? '<x column>';
  const y = columns.find((c) => c.name !== x && isNumericColumn(c))?.name ?? '<numeric column>';
  return { [x]: 'x', [y]: 'y' };
}

/** zod's issues, with a missing or malformed chart columnMapping explained by an example. */
function optionsError(error: z.ZodError, options: unknown, columns: readonly ResultColumn[]): string {
  const issues = error.issues.map((issue) =>
    issue.code === 'invalid_type' && issue.path.length === 1 && issue.path[0] === 'columnMapping'
      ? {
          ...issue,
          message: `expected an object mapping each column to its role ("x", "y", "series" or "size"), e.g. ${JSON.stringify({ columnMapping: columnMappingExample(options, columns) })}`,
        }
      : issue,
  );
  return formatZodError(new z.ZodError(issues), 'options');
}

const rows = (count: number) => `${count} row${count === 1 ? '' : 's'}`;

/**
 * Parses `options` for `type` and checks every column it names against the latest result's
 * columns. Errors name the field and list the columns that exist. A counter's row is checked
 * against the result's `rowCount` where one is given.
 */
export function validateOptions(
  type: VisualizationType,
  options: unknown,
  result: Pick<ExecutionResultMetadata, 'columns'> & { rowCount?: number },
  queryId: number,
): Record<string, unknown> {
  const { columns } = result;
  const schema = type === 'chart' ? chartOptions : type === 'counter' ? counterOptions : tableOptions;
  const parsed = schema.safeParse(options ?? {});
  if (!parsed.success) throw new BadRequestError(optionsError(parsed.error, options, columns));
  const byName = new Map(columns.map((c) => [c.name, c]));
  const available = `available columns of query ${queryId}'s latest result: ${describeColumns(columns)}`;
  const missing = (field: string, name: string) =>
    new BadRequestError(`options.${field}: no column "${name}" in the result; ${available}.`);

  if (type === 'chart') {
    const chart = parsed.data as ChartOptions;
    const mapping = Object.entries(chart.columnMapping);
    for (const [name] of mapping) if (!byName.has(name)) throw missing(`columnMapping.${name}`, name);
    const xs = mapping.filter(([, role]) => role === 'x').map(([name]) => name);
    const ys = mapping.filter(([, role]) => role === 'y').map(([name]) => name);
    const series = mapping.filter(([, role]) => role === 'series').map(([name]) => name);
    if (xs.length !== 1) {
      throw new BadRequestError(
        `options.columnMapping: map exactly one column to "x" (got ${xs.length}); ${available}.`,
      );
    }
    if (ys.length === 0) {
      throw new BadRequestError(
        `options.columnMapping: map at least one numeric column to "y"; ${available}.`,
      );
    }
    if (series.length > 1) {
      throw new BadRequestError('options.columnMapping: map at most one column to "series".');
    }
    if (chart.globalSeriesType === 'pie' && (ys.length > 1 || series.length > 0)) {
      throw new BadRequestError(
        'options.columnMapping: a pie chart takes one "x" column (the slices) and one "y" column (their sizes).',
      );
    }
    for (const name of ys) {
      if (!isNumericColumn(byName.get(name)!)) {
        const numeric = columns.filter(isNumericColumn).map((c) => c.name);
        throw new BadRequestError(
          `options.columnMapping.${name}: a "y" column must be numeric, and ${name} is ${duneSqlTypeName(byName.get(name)!.type)}; numeric columns: ${numeric.join(', ') || 'none'}.`,
        );
      }
    }
  } else if (type === 'counter') {
    const counter = parsed.data as CounterOptions;
    if (!byName.has(counter.counterColName)) throw missing('counterColName', counter.counterColName);
    if (result.rowCount !== undefined && counter.rowNumber > result.rowCount) {
      throw new BadRequestError(
        result.rowCount === 0
          ? `options.rowNumber: query ${queryId}'s latest result has no rows; run it again once it returns some.`
          : `options.rowNumber: ${counter.rowNumber} is past the last row; query ${queryId}'s latest result has ${rows(result.rowCount)}, so rowNumber is ${result.rowCount === 1 ? '1' : `1 to ${result.rowCount}`}.`,
      );
    }
  } else {
    const table = parsed.data as TableOptions;
    for (const [i, column] of (table.columns ?? []).entries()) {
      if (!byName.has(column.name)) throw missing(`columns.${i}.name`, column.name);
    }
  }
  return parsed.data as Record<string, unknown>;
}
