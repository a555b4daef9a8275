import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/test-host';

describe('GET / (landing page)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(async () => host?.stop());

  it('tells a newcomer the base URL, how to authenticate, where the API and MCP are, and the data range', async () => {
    const response = await host.call('/', { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain(`<code>${host.baseUrl}</code>`);
    expect(html).toContain('x-service-api-key');
    expect(html).toContain(`<code>${host.baseUrl}/v1</code>`);
    expect(html).toContain(`${host.baseUrl}/mcp/v1`);
    expect(html).toContain(`<a href="${host.baseUrl}/docs">`);
    expect(html).toContain(`<a href="${host.baseUrl}/v1/openapi.json">`);
    expect(html).toMatch(/The data covers <b>\d{4}-\d\d-\d\d[^<]*<\/b> to <b>\d{4}-\d\d-\d\d[^<]*<\/b>/);
    expect(html).not.toContain(host.apiKey);
  });

  it('escapes what comes from the request (the Host header)', async () => {
    const { request } = await import('node:http');
    const url = new URL(host.baseUrl);
    const html = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/', headers: { host: '<script>x</script>' } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(html).not.toContain('<script>x</script>');
    expect(html).toContain('&lt;script&gt;');
  });
});
