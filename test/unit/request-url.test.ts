import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import {
  canonicalBaseUrl,
  configuredBaseUrls,
  requestBaseUrl,
  resourceBaseUrl,
} from '../../functions/http/request-url';

const event = (headers: Record<string, string>, stagePath = '/v1/queries'): APIGatewayProxyEvent =>
  ({ headers, path: '/v1/queries', requestContext: { path: stagePath } }) as unknown as APIGatewayProxyEvent;

describe('requestBaseUrl (next_uri and other absolute links)', () => {
  it('takes the scheme API Gateway forwards, and the stage prefix', () => {
    expect(
      requestBaseUrl(
        event(
          { Host: 'abc.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' },
          '/prod/v1/queries',
        ),
      ),
    ).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod');
  });

  it('believes the forwarded scheme whatever the host name and the header case; the first of a chain', () => {
    expect(requestBaseUrl(event({ host: 'vm:3101', 'x-forwarded-proto': 'http' }))).toBe('http://vm:3101');
    expect(requestBaseUrl(event({ HOST: 'vm:3101', 'X-FORWARDED-PROTO': 'https, http' }))).toBe(
      'https://vm:3101',
    );
  });
});

describe('the configured public base URL (issuer, audience, discovery)', () => {
  /** Runs with these variables set (undefined: unset), then puts the environment back. */
  const withEnv = (env: Record<string, string | undefined>, run: () => void) => {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    try {
      run();
    } finally {
      vi.unstubAllEnvs();
    }
  };
  const evil = event({ Host: 'evil.example', 'X-Forwarded-Proto': 'https' }, '/prod/v1/queries');

  it('when set, no Host moves it; an alias the caller used is named back to it as the resource', () =>
    withEnv(
      {
        PUBLIC_BASE_URL: 'https://sql.example.com/',
        PUBLIC_BASE_URL_ALIASES: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
      },
      () => {
        expect(configuredBaseUrls()).toEqual([
          'https://sql.example.com',
          'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
        ]);
        expect(canonicalBaseUrl(evil)).toBe('https://sql.example.com');
        expect(resourceBaseUrl(evil)).toBe('https://sql.example.com');
        const viaAlias = event(
          { Host: 'abc.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' },
          '/prod/v1/queries',
        );
        expect(canonicalBaseUrl(viaAlias)).toBe('https://sql.example.com');
        expect(resourceBaseUrl(viaAlias)).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod');
      },
    ));

  it('when unset, the request says it (events made by hand)', () =>
    withEnv({ PUBLIC_BASE_URL: undefined, PUBLIC_BASE_URL_ALIASES: undefined }, () => {
      expect(configuredBaseUrls()).toEqual([]);
      expect(canonicalBaseUrl(evil)).toBe('https://evil.example/prod');
      expect(resourceBaseUrl(evil)).toBe('https://evil.example/prod');
    }));
});
