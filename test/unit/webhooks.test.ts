import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../functions/core/errors';
import { checkWebhookUrl, DEFAULT_WEBHOOK_POLICY } from '../../functions/core/webhooks';

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
