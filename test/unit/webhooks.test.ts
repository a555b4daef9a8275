import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../functions/core/errors';
import { checkWebhookUrl, DEFAULT_WEBHOOK_POLICY, FETCH_BAD_PORTS } from '../../functions/core/webhooks';

describe('webhook URLs in AWS (the default policy)', () => {
  const policy = DEFAULT_WEBHOOK_POLICY;

  it('accepts an https URL to a named host, as written', () => {
    expect(checkWebhookUrl('https://hooks.example.com/dune?token=abc', policy)).toBe(
      'https://hooks.example.com/dune?token=abc',
    );
    expect(checkWebhookUrl('https://Example.COM:8443/a', policy)).toBe('https://example.com:8443/a');
  });

  it.each([
    ['http://hooks.example.com/dune', /must use https, not http/],
    ['https://127.0.0.1/hook', /must name a public host, not 127.0.0.1/],
    ['https://10.0.0.7/hook', /must name a public host/],
    ['https://169.254.169.254/latest/meta-data', /must name a public host/],
    ['https://[::1]:9001/hook', /must name a public host, not \[::1\]/],
    ['https://localhost/hook', /must name a public host, not localhost/],
    ['https://api.localhost/hook', /must name a public host/],
    ['https://0x7f000001/hook', /must name a public host/],
  ])('refuses %s', (url, why) => {
    expect(() => checkWebhookUrl(url, policy)).toThrow(BadRequestError);
    expect(() => checkWebhookUrl(url, policy)).toThrow(why);
  });

  it('retries twice by default, after 1 s and 4 s, each attempt given 5 s', () => {
    expect(DEFAULT_WEBHOOK_POLICY).toEqual({
      allowInsecureUrls: false,
      timeoutMs: 5000,
      retryDelaysMs: [1000, 4000],
    });
  });
});

describe('webhook URLs on ports fetch will not call', () => {
  it.each(['http://127.0.0.1:6000/hook', 'http://127.0.0.1:9/nobody-listens', 'https://example.com:10080/'])(
    'refuses %s, naming the port',
    (url) => {
      const port = new URL(url).port;
      expect(() => checkWebhookUrl(url, { allowInsecureUrls: true })).toThrow(
        `webhook_url must not use port ${port}: fetch refuses to call it`,
      );
    },
  );

  it('accepts the ports around them, and the default ports', () => {
    for (const url of [
      'http://127.0.0.1:47/hook',
      'http://127.0.0.1:5999/',
      'https://example.com/',
      'http://a.example:80/',
    ]) {
      expect(() => checkWebhookUrl(url, { allowInsecureUrls: true }), url).not.toThrow();
    }
  });

  it("lists exactly ports this Node's fetch refuses", async () => {
    const refusals = await Promise.all(
      [...FETCH_BAD_PORTS].map(async (port) => {
        const error = await fetch(`http://127.0.0.1:${port}/`).then(
          () => undefined,
          (failure: Error) => failure,
        );
        return [port, (error?.cause as Error | undefined)?.message] as const;
      }),
    );
    expect(refusals.filter(([, why]) => why !== 'bad port')).toEqual([]);
  });
});

describe('webhook URLs on the local host', () => {
  it('accepts plain http to this machine', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8080/hook', { allowInsecureUrls: true })).toBe(
      'http://127.0.0.1:8080/hook',
    );
    expect(() => checkWebhookUrl('file:///etc/passwd', { allowInsecureUrls: true })).toThrow(
      /must use http or https, not file/,
    );
  });
});
