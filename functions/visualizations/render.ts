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

function toTime(value: ResultValue | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  const text = String(value);
  // Engine timestamps look like `2024-01-02 03:04:05(.123)`: read them as UTC.
  const iso =
    /^\d{4}-\d{2}-\d{2}( |T)\d/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/.test(text)
      ? `${text.replace(' ', 'T')}Z`
      : text;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : iso);
  return Number.isFinite(ms) ? ms : null;
}

/** `2024-01-02` for midnight, else `2024-01-02 13:00` (UTC). */
function timeLabel(value: ResultValue | undefined): string {
  const ms = toTime(value ?? null);
  if (ms === null) return label(value);
  const iso = new Date(ms).toISOString();
  return iso.slice(11, 19) === '00:00:00' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
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
  const timeLabels = isTemporalColumn(xColumn) && banded;
  const temporal = isTemporalColumn(xColumn) && !banded;
  const continuous = temporal || (isNumericColumn(xColumn) && ['line', 'area', 'scatter'].includes(type));
  const xType = temporal ? 'temporal' : continuous ? 'quantitative' : 'nominal';
  const seriesField = roles.series !== undefined || roles.ys.length > 1;

  const values = input.rows.flatMap((row) =>
    roles.ys.map((y) => ({
      x: temporal
        ? toTime(row[roles.x])
        : continuous
          ? toNumber(row[roles.x])
          : timeLabels
            ? timeLabel(row[roles.x])
            : label(row[roles.x]),
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
    ...(temporal ? { scale: { type: 'utc' } } : {}),
    ...(options.reverseX && xType !== 'nominal' ? { scale: { reverse: true } } : {}),
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
