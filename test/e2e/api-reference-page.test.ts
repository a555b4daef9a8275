/**
 * End-to-end: the API reference page (`GET /docs`) in headless Chromium. The page renders this
 * host's OpenAPI document with the vendored RapiDoc bundle, so it must show the operations of the
 * route table, load nothing from anywhere but this host (no CDN, even for fonts), and run no
 * script the page's CSP forbids.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAPIDOC_FILE } from '../../functions/apidocs/page';
import { launchChromium } from '../support/ensure-chromium';
import { startTestHost, type TestHost } from '../support/test-host';

describe('GET /docs (API reference page)', () => {
  let host: TestHost | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    host = await startTestHost();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
  });

  it('serves the vendored bundle unchanged (its checksum is the one vendor/rapidoc/README.md states)', async () => {
    const readme = await readFile('vendor/rapidoc/README.md', 'utf8');
    const stated = /sha256 ([0-9a-f]{64})/.exec(readme)?.[1];
    const response = await host!.call('/docs/rapidoc.js', { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/javascript');
    expect(response.headers.get('cache-control')).toContain('max-age=');
    const served = Buffer.from(await response.arrayBuffer());
    expect(createHash('sha256').update(served).digest('hex')).toBe(stated);
    expect(served.equals(await readFile(RAPIDOC_FILE))).toBe(true);
  });

  it('renders the operations of this host in the browser, loading only from this host', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const offHost: string[] = [];
    const blocked: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(host!.baseUrl) && !request.url().startsWith('data:')) {
        offHost.push(request.url());
      }
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${host!.baseUrl}/docs`, { waitUntil: 'load', timeout: 15_000 });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // RapiDoc fetches /v1/openapi.json and renders into its shadow DOM (Playwright's locators pierce it).
    await page.getByText('Save a query', { exact: false }).first().waitFor({ timeout: 15_000 });
    const text = await page.locator('rapi-doc').evaluate((element) => {
      // biome-ignore lint/suspicious/noExplicitAny: DOM objects without DOM typings
      return ((element as any).shadowRoot?.textContent ?? '') as string;
    });
    for (const path of [
      '/v1/query/{query_id}/execute',
      '/v1/execution/{execution_id}/results',
      '/v1/pipelines/execute',
    ]) {
      expect(text).toContain(path);
    }
    expect(pageErrors).toEqual([]);
    // Nothing from a CDN (the bundle's web fonts are turned off), nothing the CSP had to refuse.
    expect(offHost).toEqual([]);
    expect(blocked).toEqual([]);
    await page.close();
  });
});
