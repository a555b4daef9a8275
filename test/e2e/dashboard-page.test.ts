/**
 * End-to-end: the shared dashboard page (`GET /dashboards/{id}?key=…`) opened in a real browser.
 *
 * Starts the local host, saves and runs a query, makes a bar chart and a counter on its result,
 * creates a dashboard with both plus a text widget holding `<script>alert(1)</script>`, then
 * opens `dashboard_url` in headless Chromium (playwright-core driving Debian's chromium, not a
 * browser downloaded by Playwright) and checks what a person would see: the title, the script
 * shown as literal text and never run, both SVG images decoded and drawing visible pixels, and a
 * full-page screenshot.
 *
 * Needs `/usr/bin/chromium` (Debian package `chromium`): the test run's global setup installs it when
 * missing and it can, or stops the run with the command to run (test/support/ensure-chromium.ts).
 * Set DASHBOARD_SCREENSHOT=/some/path.png to keep the screenshot; otherwise it goes to a temp dir
 * that is removed afterwards.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/ensure-chromium';
import { waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';

describe('dashboard page in headless Chromium', () => {
  let host: TestHost | undefined;
  let browser: Browser | undefined;
  let dashboardUrl: string;
  let chartId: number;
  let counterId: number;

  beforeAll(async () => {
    host = await startTestHost();
    const created = await bodyOf(
      await host.call('/v1/query', {
        json: {
          name: 'e2e dashboard source',
          query_sql: 'select blockchain, count(*) as trades from dex.trades group by 1 order by 1',
        },
      }),
    );
    const run = await bodyOf(await host.call(`/v1/query/${created.query_id}/execute`, { method: 'POST' }));
    expect((await waitUntilFinished(host, run.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    const viz = async (body: Json) => {
      const response = await host!.call(`/v1/query/${created.query_id}/visualizations`, { json: body });
      expect(response.status).toBe(200);
      return (await bodyOf(response)).id as number;
    };
    chartId = await viz({
      name: 'Trades by chain',
      type: 'chart',
      options: { globalSeriesType: 'bar', columnMapping: { blockchain: 'x', trades: 'y' } },
    });
    counterId = await viz({ name: 'Trades', type: 'counter', options: { counterColName: 'trades' } });
    const dashboard = await bodyOf(
      await host.call('/v1/dashboards', {
        json: {
          name: 'E2E DEX overview',
          visualization_ids: [chartId, counterId],
          text_widgets: [{ text: '## Notes\n<script>alert(1)</script> **bold**' }],
        },
      }),
    );
    dashboardUrl = dashboard.dashboard_url;
    expect(dashboardUrl).toContain('?key=');

    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
  });

  it('shows the title, escaped text, rendered chart and counter images; takes a screenshot', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(dashboardUrl, { waitUntil: 'load', timeout: 10_000 });
    expect(response?.status()).toBe(200);

    // Title: both the document title and the visible heading.
    expect(await page.title()).toBe('E2E DEX overview');
    expect(await page.locator('h1').isVisible()).toBe(true);
    expect((await page.locator('h1').textContent())?.trim()).toBe('E2E DEX overview');

    // The text widget: Markdown subset rendered, the script shown as literal text, never run.
    expect(await page.locator('h3', { hasText: 'Notes' }).isVisible()).toBe(true);
    const scriptText = page.getByText('<script>alert(1)</script>', { exact: false });
    expect(await scriptText.isVisible()).toBe(true);
    expect(await page.locator('strong', { hasText: 'bold' }).isVisible()).toBe(true);
    expect(await page.locator('script').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);

    // Both visualizations: decoded SVG images with a size, drawing non-background pixels.
    for (const [id, type] of [
      [chartId, 'chart'],
      [counterId, 'counter'],
    ] as const) {
      const figure = page.locator(`figure[data-visualization-id="${id}"]`);
      expect(await figure.getAttribute('data-type')).toBe(type);
      const img = figure.locator('img');
      expect(await img.isVisible()).toBe(true);
      const drawn = await img.evaluate(async (element) => {
        // Runs in the page; typed loosely because the project's tsconfig has no DOM lib.
        // biome-ignore lint/suspicious/noExplicitAny: DOM objects without DOM typings
        const image = element as any;
        await image.decode();
        // biome-ignore lint/suspicious/noExplicitAny: DOM objects without DOM typings
        const doc = (globalThis as any).document;
        const box = image.getBoundingClientRect();
        const canvas = doc.createElement('canvas');
        canvas.width = image.naturalWidth;
        canvas.height = image.naturalHeight;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
        let inked = 0; // opaque pixels that are not (near) white
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] > 200 && data[i] + data[i + 1] + data[i + 2] < 600) inked++;
        }
        return {
          complete: image.complete as boolean,
          naturalWidth: image.naturalWidth as number,
          naturalHeight: image.naturalHeight as number,
          boxWidth: box.width as number,
          boxHeight: box.height as number,
          inkedShare: inked / (canvas.width * canvas.height),
        };
      });
      expect(drawn.complete).toBe(true);
      expect(drawn.naturalWidth).toBeGreaterThan(100);
      expect(drawn.naturalHeight).toBeGreaterThan(50);
      expect(drawn.boxWidth).toBeGreaterThan(100);
      expect(drawn.boxHeight).toBeGreaterThan(50);
      // Something is drawn (bars, axes, the big number), but the image is not one solid block.
      expect(drawn.inkedShare).toBeGreaterThan(0.005);
      expect(drawn.inkedShare).toBeLessThan(0.9);
    }
    expect(await page.locator('figcaption', { hasText: 'Trades by chain' }).isVisible()).toBe(true);

    const keep = process.env.DASHBOARD_SCREENSHOT;
    const shotDir = keep ? undefined : await mkdtemp(join(tmpdir(), 'e2e-shot-'));
    const shotPath = keep ?? join(shotDir!, 'dashboard.png');
    try {
      const png = await page.screenshot({ path: shotPath, fullPage: true });
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect((await stat(shotPath)).size).toBeGreaterThan(20_000);
    } finally {
      if (shotDir) await rm(shotDir, { recursive: true, force: true });
    }
    await page.close();
  });
});
