import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ResultColumn, ResultValue } from '../core/engine';
import { escapeHtml } from '../http/html';
import type { ChartOptions, CounterOptions } from './options';
import { isNumericColumn, isTemporalColumn } from './options';
import { RASTERIZER_FILES } from './rasterizer-files';

/** Rendering reads at most this many rows of the result (the first ones, sorted by x). */
export const MAX_RENDER_ROWS = 5_000;
const WIDTH = 640;
const HEIGHT = 320;
const PALETTE = 'tableau10';

export interface ChartInput {
  title: string;
  options: ChartOptions;
  columns: readonly ResultColumn[];
  rows: readonly Record<string, ResultValue>[];
  /** Rows in the whole result (a note says when only the first MAX_RENDER_ROWS are drawn). */
  totalRowCount: number;
}

/** The chart's columns by role. */
export function chartRoles(options: ChartOptions) {
  const mapping = Object.entries(options.columnMapping);
  const pick = (role: string) => mapping.filter(([, r]) => r === role).map(([name]) => name);
  return { x: pick('x')[0]!, ys: pick('y'), series: pick('series')[0], size: pick('size')[0] };
}

function toNumber(value: ResultValue | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * `2024-01-02 03:04:05.678 UTC` as the results API writes timestamps (both hosts), or with the zone
 * a zoned column shows (`… America/New_York`, `… +05:30`); `2024-01-02` for dates; years may run
 * past four digits or below zero.
 */
const RESULT_TIME =
  /^(-?\d{4,})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:Z|\s*[+-]\d{2}(?::?\d{2})?|\s+[A-Za-z][\w/+-]*)?$/;

/**
 * A result's date or timestamp as epoch milliseconds of the wall-clock time it shows, null when it
 * is not one. The zone label is left aside: the axis (a UTC scale) then shows the times the result
 * shows, in the order results sort them by (functions/aws/results/athena-values.ts).
 */
export function resultTimeMillis(value: ResultValue | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const match = RESULT_TIME.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction] = match;
  // Built in 2000 (a leap year, so every valid day exists), then moved to its year: Date.UTC reads
  // years 0-99 as 1900-1999.
  const date = new Date(
    Date.UTC(
      2000,
      Number(month) - 1,
      Number(day),
      Number(hour ?? 0),
      Number(minute ?? 0),
      Number(second ?? 0),
      Number((fraction ?? '').padEnd(3, '0').slice(0, 3)),
    ),
  );
  date.setUTCFullYear(Number(year));
  const ms = date.getTime();
  return Number.isFinite(ms) ? ms : null;
}

const DAY_MS = 86_400_000;

/**
 * The x column's values as times, or undefined when one of them is not a time (the chart then
 * labels them as they are rather than dropping them).
 */
function readTimes(values: readonly (ResultValue | undefined)[]): (number | null)[] | undefined {
  const times = values.map(resultTimeMillis);
  return times.every((time, i) => time !== null || values[i] === null || values[i] === undefined)
    ? times
    : undefined;
}

/**
 * Labels for a series of times, all to the same precision: dates when every time is a midnight
 * (daily, weekly, monthly buckets), else to the minute, second or millisecond the times need.
 */
function timeLabeller(times: readonly (number | null)[]): (time: number | null) => string {
  const present = times.filter((time) => time !== null);
  const all = (unit: number) => present.every((time) => time % unit === 0);
  const timeLength = all(DAY_MS) ? 0 : all(60_000) ? 5 : all(1000) ? 8 : 12;
  return (time) => {
    if (time === null) return 'null';
    // Years past 9999 or before 0 as results write them (`10000-…`, `-0001-…`), not `+010000-…`.
    const [date, clock] = new Date(time)
      .toISOString()
      .replace(/^\+?(-?)0*(?=\d{4,}-)/, '$1')
      .split('T');
    return timeLength ? `${date} ${clock!.slice(0, timeLength)}` : date!;
  };
}

/** At most this many ticks on a date axis: its labels fit side by side. */
const MAX_DATE_TICKS = 10;

/**
 * A time axis over midnights only shows dates, ticked at the data's own buckets (every k-th when
 * there are many): vega's own ticks would fall between them (12 PM, or Sundays for weeks starting
 * on Monday).
 */
function dateAxis(times: readonly (number | null)[]) {
  if (times.some((time) => time !== null && time % DAY_MS !== 0)) return {};
  const distinct = [...new Set(times.filter((time) => time !== null))].sort((a, b) => a - b);
  const step = Math.ceil(distinct.length / MAX_DATE_TICKS);
  return {
    axis: { format: '%Y-%m-%d', values: distinct.filter((_, i) => i % step === 0) },
  };
}

function label(value: ResultValue | undefined): string {
  if (value === null || value === undefined) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The Vega-Lite spec of a chart, over long-format data `{x, value, series, size}`. */
export function chartSpec(input: ChartInput): TopLevelSpec {
  const { options, columns } = input;
  const roles = chartRoles(options);
  const type = options.globalSeriesType;
  const xColumn = columns.find((c) => c.name === roles.x)!;
  // Bars and slices need bands: their timestamps become labels (in result order, sorted by x).
  const banded = type === 'bar' || type === 'column' || type === 'pie';
  const times = isTemporalColumn(xColumn) ? readTimes(input.rows.map((row) => row[roles.x])) : undefined;
  const temporal = times !== undefined && !banded;
  const continuous = temporal || (isNumericColumn(xColumn) && ['line', 'area', 'scatter'].includes(type));
  const xType = temporal ? 'temporal' : continuous ? 'quantitative' : 'nominal';
  const seriesField = roles.series !== undefined || roles.ys.length > 1;
  const timeLabel = times !== undefined && banded ? timeLabeller(times) : undefined;
  const xs = input.rows.map((row, i) => {
    if (times !== undefined) return timeLabel ? timeLabel(times[i] ?? null) : (times[i] ?? null);
    return continuous ? toNumber(row[roles.x]) : label(row[roles.x]);
  });

  const values = input.rows.flatMap((row, i) =>
    roles.ys.map((y) => ({
      x: xs[i],
      value: toNumber(row[y]),
      ...(seriesField ? { series: roles.series !== undefined ? label(row[roles.series]) : y } : {}),
      ...(roles.size !== undefined ? { size: toNumber(row[roles.size]) } : {}),
    })),
  );

  const stacked = options.series?.stacking === 'stack';
  const xTitle = options.xAxis?.title?.text ?? roles.x;
  const yTitle = options.yAxis?.[0]?.title?.text ?? (roles.ys.length === 1 ? roles.ys[0]! : 'value');
  const logY = options.yAxis?.[0]?.type === 'logarithmic';
  const legend = options.legend?.enabled === false ? null : {};
  const xEncoding = {
    field: 'x',
    type: xType,
    title: xTitle,
    ...(xType === 'nominal' ? { sort: null, axis: { labelOverlap: 'greedy', labelLimit: 160 } } : {}),
    ...(temporal ? dateAxis(times) : {}),
    scale: {
      ...(temporal ? { type: 'utc' } : {}),
      ...(options.reverseX && xType !== 'nominal' ? { reverse: true } : {}),
    },
  };
  const yEncoding = {
    field: 'value',
    type: 'quantitative',
    title: yTitle,
    ...(logY ? { scale: { type: 'log' } } : {}),
  };
  const color = seriesField
    ? {
        color: {
          field: 'series',
          type: 'nominal',
          title: roles.series ?? 'series',
          legend,
          scale: { scheme: PALETTE },
        },
      }
    : {};
  const note =
    input.totalRowCount > input.rows.length
      ? `first ${input.rows.length.toLocaleString('en-US')} of ${input.totalRowCount.toLocaleString('en-US')} rows`
      : undefined;

  // biome-ignore lint/suspicious/noExplicitAny: assembled per chart type; vega-lite validates it when compiling
  let layer: Record<string, any>;
  switch (type) {
    case 'pie':
      layer = {
        mark: { type: 'arc', innerRadius: 0 },
        encoding: {
          theta: { field: 'value', type: 'quantitative', stack: true },
          color: {
            field: 'x',
            type: 'nominal',
            title: xTitle,
            legend,
            sort: null,
            scale: { scheme: PALETTE },
          },
          order: { field: 'value', type: 'quantitative', sort: 'descending' },
        },
      };
      break;
    case 'bar':
      layer = {
        mark: 'bar',
        encoding: {
          y: xEncoding,
          x: { ...yEncoding, stack: stacked ? 'zero' : null },
          ...color,
          ...(seriesField && !stacked ? { yOffset: { field: 'series' } } : {}),
        },
      };
      break;
    case 'column':
      layer = {
        mark: 'bar',
        encoding: {
          x: xEncoding,
          y: { ...yEncoding, stack: stacked ? 'zero' : null },
          ...color,
          ...(seriesField && !stacked ? { xOffset: { field: 'series' } } : {}),
        },
      };
      break;
    case 'area':
      layer = {
        mark: { type: 'area', opacity: stacked ? 1 : 0.55, line: true },
        encoding: { x: xEncoding, y: { ...yEncoding, stack: stacked ? 'zero' : null }, ...color },
      };
      break;
    case 'scatter':
      layer = {
        mark: { type: 'circle', opacity: 0.75 },
        encoding: {
          x: xEncoding,
          y: yEncoding,
          ...color,
          ...(roles.size !== undefined
            ? { size: { field: 'size', type: 'quantitative', title: roles.size } }
            : {}),
        },
      };
      break;
    default:
      layer = {
        mark: { type: 'line', point: input.rows.length <= 60 },
        encoding: { x: xEncoding, y: yEncoding, ...color },
      };
  }

  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: note ? { text: input.title, subtitle: note } : input.title,
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    padding: 12,
    data: { values },
    ...layer,
    config: { font: 'DejaVu Sans, Arial, Helvetica, sans-serif', view: { stroke: null } },
  } as TopLevelSpec;
}

/** Renders a chart to a standalone SVG document (vega's headless SVG renderer, no canvas needed). */
export async function renderChartSvg(input: ChartInput): Promise<string> {
  const { spec } = compile(chartSpec(input));
  const view = new vega.View(vega.parse(spec), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export interface CounterInput {
  title: string;
  options: CounterOptions;
  value: ResultValue | undefined;
}

/** The counter's display text: prefix, number formatted with `stringDecimal` digits, suffix. */
export function counterText(options: CounterOptions, value: ResultValue | undefined): string {
  let text: string;
  const n = toNumber(value ?? null);
  if (value === undefined) text = '—';
  else if (n !== null && (typeof value === 'number' || /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(String(value)))) {
    const digits = options.stringDecimal;
    text = n.toLocaleString('en-US', {
      minimumFractionDigits: digits ?? 0,
      maximumFractionDigits: digits ?? 2,
    });
  } else text = label(value ?? null);
  const full = `${options.stringPrefix ?? ''}${text}${options.stringSuffix ?? ''}`;
  return full.length > 40 ? `${full.slice(0, 39)}…` : full;
}

/** A counter: one big value and a label, as a small SVG document (all text escaped). */
export function renderCounterSvg(input: CounterInput): string {
  const text = counterText(input.options, input.value);
  const caption = input.options.counterLabel ?? input.title;
  const size = text.length <= 10 ? 56 : text.length <= 20 ? 36 : 22;
  const font = 'DejaVu Sans, Arial, Helvetica, sans-serif';
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="360" height="180" viewBox="0 0 360 180" class="marks counter">',
    '<rect width="360" height="180" fill="white"/>',
    `<text x="180" y="100" text-anchor="middle" font-family="${font}" font-size="${size}" font-weight="bold" fill="#1f2933">${escapeHtml(text)}</text>`,
    `<text x="180" y="145" text-anchor="middle" font-family="${font}" font-size="16" fill="#52606d">${escapeHtml(caption.slice(0, 60))}</text>`,
    '</svg>',
  ].join('');
}

type Rasterizer = { Resvg: typeof import('@resvg/resvg-wasm').Resvg; fonts: Uint8Array[] };
let rasterizer: Promise<Rasterizer | undefined> | undefined;

/**
 * Loads resvg (WASM) and the fonts once per process: from the repository (local host), or from
 * beside the bundle (Lambda). Where the files are missing PNG is unavailable and callers fall back
 * to SVG.
 */
function loadRasterizer(): Promise<Rasterizer | undefined> {
  rasterizer ??= (async () => {
    const [wasm, ...fonts] = await Promise.all(RASTERIZER_FILES.map(readBesideOrInRepo));
    const { initWasm, Resvg } = await import('@resvg/resvg-wasm');
    await initWasm(wasm!);
    return { Resvg, fonts: fonts as Uint8Array[] };
  })().catch(() => undefined);
  return rasterizer;
}

async function readBesideOrInRepo(file: string): Promise<Uint8Array> {
  // functions/visualizations/ in the repository; the bundle root in Lambda.
  const candidates = [new URL(`../../${file}`, import.meta.url), new URL(`./${file}`, import.meta.url)];
  let lastError: unknown;
  for (const url of candidates) {
    try {
      return new Uint8Array(await readFile(fileURLToPath(url)));
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** PNG of an SVG document, or undefined where the rasterizer is not available. */
export async function svgToPng(svg: string): Promise<Buffer | undefined> {
  const loaded = await loadRasterizer();
  if (!loaded) return undefined;
  const image = new loaded.Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: 1.5 },
    // The bundled DejaVu Sans only: the same glyphs on every host, whatever fonts it has.
    font: { fontBuffers: loaded.fonts, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  });
  try {
    return Buffer.from(image.render().asPng());
  } finally {
    image.free();
  }
}
