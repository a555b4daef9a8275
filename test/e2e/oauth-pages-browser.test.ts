/**
 * The sign-in and consent pages in headless Chromium (Debian's, driven by playwright-core): a
 * person signs in and allows access, and the browser lands on the client's redirect URI with a
 * code. Screenshots of both pages go to test-results/oauth/ (printed).
 */
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/ensure-chromium';
import { authorizationUrl, pkcePair, registerClient } from '../support/oauth-browser';
import { startTestHost, type TestHost } from '../support/test-host';

const SHOTS = resolve('test-results/oauth');

describe('OAuth pages in headless Chromium', () => {
  let host: TestHost;
  let browser: Browser;
  beforeAll(async () => {
    host = await startTestHost();
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
  });

  it('walks sign-in and consent to the client redirect with a code', { timeout: 90_000 }, async () => {
    let landed: URL | undefined;
    const callbackServer = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      // Chromium asks this origin for /favicon.ico after landing; only the redirect counts.
      if (url.pathname === '/callback') landed = url;
      response.end('client callback');
    });
    await new Promise<void>((done) => callbackServer.listen(0, '127.0.0.1', done));
    const port = (callbackServer.address() as AddressInfo).port;
    const redirect = `http://127.0.0.1:${port}/callback`;
    const clientId = await registerClient(host.baseUrl, redirect, 'Chromium <b>test</b> client');
    const page = await browser.newPage();
    await page.goto(
      authorizationUrl(host.baseUrl, {
        client_id: clientId,
        redirect_uri: redirect,
        code_challenge: pkcePair().challenge,
      }),
    );
    expect(await page.textContent('h1')).toBe('Sign in to Onchain SQL service');
    expect(await page.textContent('main')).toContain('Chromium <b>test</b> client');
    const loginShot = join(SHOTS, 'login.png');
    await page.screenshot({ path: loginShot, fullPage: true });
    await page.fill('#email', host.login.email);
    await page.fill('#password', host.login.password);
    await Promise.all([page.waitForURL(/\/oauth\/mcp\/authorize/), page.click('button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Allow access?');
    expect(await page.textContent('main')).toContain('Chromium <b>test</b> client unverified wants access');
    expect(await page.textContent('.target')).toBe(
      `If you allow, your browser returns to 127.0.0.1:${port} (an application on this computer). Allow only if you are connecting an application there.`,
    );
    // The return host is the most visible text after the heading.
    const fontSize = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((element) => {
          // Runs in the page; typed loosely because the project's tsconfig has no DOM lib.
          // biome-ignore lint/suspicious/noExplicitAny: DOM objects without DOM typings
          return Number.parseFloat((globalThis as any).getComputedStyle(element).fontSize);
        });
    const sizes = [await fontSize('.target strong'), await fontSize('main p strong')];
    expect(sizes[0]).toBeGreaterThan(sizes[1]!);
    expect(await page.textContent('main')).toContain('mcp:service:full');
    const consentShot = join(SHOTS, 'consent.png');
    await page.screenshot({ path: consentShot, fullPage: true });
    await Promise.all([page.waitForURL(/\/callback/), page.click('button[value=approve]')]);
    expect(landed?.searchParams.get('code'), String(landed)).toBeTruthy();
    expect(landed?.searchParams.get('state')).toBe('state-1');
    callbackServer.close();
    console.info(`OAuth page screenshots: ${loginShot} ${consentShot}`);
  });
});
