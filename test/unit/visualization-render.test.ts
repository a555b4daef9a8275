import { describe, expect, it } from 'vitest';
import type { ResultColumn, ResultValue } from '../../functions/core/engine';
import type { ChartOptions } from '../../functions/visualizations/options';
import { renderChartSvg, resultTimeMillis } from '../../functions/visualizations/render';

/** Renders `type` over rows `{x, v}` with the real renderer (vega → SVG). */
function render(type: ChartOptions['globalSeriesType'], xType: string, xs: ResultValue[]): Promise<string> {
  const columns: ResultColumn[] = [
    { name: 'x', type: xType },
    { name: 'v', type: 'BIGINT' },
  ];
  return renderChartSvg({
    title: 'chart',
    options: { globalSeriesType: type, columnMapping: { x: 'x', v: 'y' } },
    columns,
    rows: xs.map((x, i) => ({ x, v: 10 + i })),
    totalRowCount: xs.length,
  });
}

/** The contents of the SVG's data-mark group of `kind` (line, area, symbol, rect). */
function markGroup(svg: string, kind: string): string {
  const match = new RegExp(`<g class="mark-${kind} role-mark[^"]*"[^>]*>(.*?)</g>`).exec(svg);
  return match?.[1] ?? '';
}

/** Points of the first path in a line or area group (its `M`/`L` commands; an area draws each twice). */
function pathPoints(svg: string, kind: string): number {
  const d = /\sd="([^"]*)"/.exec(markGroup(svg, kind))?.[1] ?? '';
  return d.match(/[ML]/g)?.length ?? 0;
}

const marks = (svg: string, kind: string) => markGroup(svg, kind).match(/<path/g)?.length ?? 0;
const axisLabels = (svg: string) =>
  [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!).filter((t) => /^\d{4}-/.test(t));

// As the results API delivers a weekly date_trunc: timestamp(3), written `… UTC` on both hosts.
const WEEKS = ['2026-10-26 00:00:00.000 UTC', '2026-11-02 00:00:00.000 UTC', '2026-11-09 00:00:00.000 UTC'];

describe('chart rendering over date and timestamp columns', () => {
  it('reads every form the results API writes timestamps and dates in, as the wall-clock time shown', () => {
    const at = Date.UTC(2026, 10, 1, 13, 4, 5, 678);
    expect(resultTimeMillis('2026-11-01 13:04:05.678 UTC')).toBe(at);
    // timestamp with time zone / AT TIME ZONE: the zone Trino (and the local store) label it with.
    expect(resultTimeMillis('2026-11-01 13:04:05.678 America/New_York')).toBe(at);
    expect(resultTimeMillis('2026-11-01 13:04:05.678 +05:30')).toBe(at);
    expect(resultTimeMillis('2026-11-01 13:04:05.678123 UTC')).toBe(at);
    expect(resultTimeMillis('2026-11-01T13:04:05.678Z')).toBe(at);
    expect(resultTimeMillis('2026-11-01 13:04:05 UTC')).toBe(Date.UTC(2026, 10, 1, 13, 4, 5));
    expect(resultTimeMillis('2026-11-01')).toBe(Date.UTC(2026, 10, 1));
    const year = (text: string) => new Date(resultTimeMillis(text)!).getUTCFullYear();
    expect(year('0050-01-01 00:00:00.000 UTC')).toBe(50);
    expect(year('10000-01-01 00:00:00.000 UTC')).toBe(10_000);
    expect(year('-0001-06-01 00:00:00.000 UTC')).toBe(-1);
    expect(resultTimeMillis(at)).toBe(at);
    for (const notATime of ['soon', '2026-11', '12:00:00', '2026-11-01 garbage!', null, true]) {
      expect(resultTimeMillis(notATime), String(notATime)).toBeNull();
    }
  });

  it('draws line, area and scatter charts over a timestamp column, with date ticks at the buckets', async () => {
    const line = await render('line', 'TIMESTAMP', WEEKS);
    expect(pathPoints(line, 'line')).toBe(3);
    expect(marks(line, 'symbol')).toBe(3);
    expect(axisLabels(line)).toEqual(['2026-10-26', '2026-11-02', '2026-11-09']);
    const area = await render('area', 'timestamp(3)', WEEKS);
    expect(pathPoints(area, 'area')).toBe(6);
    const scatter = await render('scatter', 'TIMESTAMP WITH TIME ZONE', WEEKS);
    expect(marks(scatter, 'symbol')).toBe(3);
    // A zoned column (x AT TIME ZONE …) is drawn at the times it shows.
    const zoned = await render(
      'line',
      'TIMESTAMP AT TIME ZONE America/New_York',
      WEEKS.map((w) => w.replace('UTC', 'America/New_York')),
    );
    expect(pathPoints(zoned, 'line')).toBe(3);
    expect(axisLabels(zoned)).toEqual(['2026-10-26', '2026-11-02', '2026-11-09']);
  });

  it('ticks a long daily series at every k-th day, never between days', async () => {
    const days = Array.from({ length: 45 }, (_, i) =>
      new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
    );
    const svg = await render('line', 'DATE', days);
    expect(pathPoints(svg, 'line')).toBe(45);
    const labels = axisLabels(svg);
    expect(labels.length).toBeGreaterThan(3);
    expect(labels.length).toBeLessThanOrEqual(10);
    expect(labels.every((label) => days.includes(label))).toBe(true);
  });

  it('labels bars over timestamps as dates when every one is a midnight, else to the minute', async () => {
    const bars = await render('column', 'TIMESTAMP', WEEKS);
    expect(marks(bars, 'rect')).toBe(3);
    expect(axisLabels(bars)).toEqual(['2026-10-26', '2026-11-02', '2026-11-09']);
    const hours = await render('bar', 'TIMESTAMP', [
      '2026-11-01 00:00:00.000 UTC',
      '2026-11-01 01:00:00.000 UTC',
      '2026-11-01 02:00:00.000 UTC',
    ]);
    expect(axisLabels(hours)).toEqual(['2026-11-01 00:00', '2026-11-01 01:00', '2026-11-01 02:00']);
    const far = await render('column', 'TIMESTAMP', [
      '-0001-06-01 00:00:00.000 UTC',
      '10000-01-01 00:00:00.000 UTC',
    ]);
    expect(far).toContain('>-0001-06-01<');
    expect(far).toContain('>10000-01-01<');
  });

  it('labels x values that are not times as they are instead of dropping them', async () => {
    const svg = await render('line', 'TIMESTAMP', ['2026-11-01 00:00:00.000 UTC', 'infinity']);
    expect(pathPoints(svg, 'line')).toBe(2);
    expect(svg).toContain('>infinity<');
  });
});
